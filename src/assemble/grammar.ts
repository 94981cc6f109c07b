/**
 * The grammar stage's one interface, for both modes: `MessageValidator` (validate: a public stream
 * in, the same events out, every rule of SPEC §3 and every `.done` checked) and `MessageAssembler`
 * (assemble: bare fragments in, the public stream out, SPEC §5). The stage stream, the fused
 * reader and the live message see only this.
 */
import type { DoneItem, UniEvent, UniMessage } from "../schema.js";
import type { GroupBuffer } from "./group.js";

export interface Grammar {
  /** One event in; the events it makes go to `emit`. Throws a `Fault` or a typed error. */
  push(event: UniEvent, emit: (event: UniEvent) => void): void;
  /** What `JSON.parse` made of a record, taken the short way (checked whole, passed to `emit`): true; false: nothing done, `push` decides. */
  takeFragment(value: unknown, emit: (event: UniEvent) => void): boolean;
  /** The input ended: the last events go to `emit`, or the error the end is. */
  end(emit: (event: UniEvent) => void): void;
  /** The message, once the stream is complete. */
  readonly message: UniMessage | undefined;
  /** The done items so far (live: do not mutate). */
  readonly doneItems: readonly DoneItem[];
  /** The group being streamed now (validate mode), for the live message. */
  readonly openGroup: GroupBuffer | null;
  /** For the timings (read per chunk, not per event): whether any event went out. */
  readonly started: boolean;
  /** For the timings: whether an item of the answer (not thinking) began. */
  readonly answered: boolean;
  /** For the timings: the UTF-16 units of text, thinking and tool arguments that went out. */
  characters(): number;
}

import { MessageAssembler } from "./assembler.js";
import { MessageValidator } from "./validator.js";

/** The grammar of a mode: a checker of public streams, or the producer-side assembler. */
export function createGrammar(mode: "validate" | "assemble", client: string, limits: { maxItems: number; maxDepth: number }): Grammar {
  return mode === "assemble" ? new MessageAssembler(client, limits) : new MessageValidator(client, limits);
}
