/**
 * Which item kinds carry bytes (`data`: padded base64 on the wire, a `Uint8Array` once read): the kind
 * table's `joins: "bytes"` kinds (assemble/kinds.ts; test/unit/kinds.test.ts holds the two together),
 * in a module of its own so that the framing's capture and the encoders know them without the table
 * and its checks (~1.2 KB min+gzip they have no use for).
 */
import type { Kind } from "../schema.js";

export const BYTE_KINDS: readonly Kind[] = ["inline_data", "inline_thinking"];

/** Whether `type` is an item type of a kind that carries bytes (`inline_data.delta`, `inline_thinking.done`…). */
export const carriesBytes = (type: unknown): boolean =>
  typeof type === "string" && BYTE_KINDS.includes(type.slice(0, type.indexOf(".")) as Kind);
