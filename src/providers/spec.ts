/**
 * What the reading side knows of one provider: its name and how to read its stream. Each provider's
 * module exports one (`openai-chat/spec.ts`, `anthropic/spec.ts`…); the stream, `fromProviderResponse`
 * and the factories take it, so a bundle that uses one provider carries that provider's reader only.
 */
import type { EventReader } from "./event-reader.js";

/** One provider's stream reading: the name errors blame, a reader per stream, and its error objects' type. */
export interface ProviderSpec {
  /** The provider's name (`"anthropic"`…): the `client` of its errors. */
  readonly name: string;
  /** A reader for one stream (a reader keeps the stream's state); `client` names the provider in the errors it throws. */
  reader(client: string): EventReader;
  /**
   * The provider's own type of the error object it sent (a refusal body's `error`), kept for the
   * statuses MMSP names no type for (429, 5xx); default: its `type` when that is a string.
   */
  errorType?(error: Record<string, unknown>): string | null;
  /** The model a record of the stream names (Chat chunk `model`, Anthropic `message_start`…), else undefined. */
  modelOf?(record: Record<string, unknown>): unknown;
  /**
   * @internal A tiny whole answer in this provider's stream (its records, `data:` of each), read once per
   * isolate by a core kept alive: the shapes of the hot path outlive each stream (core.ts, `prime`).
   */
  readonly sample?: readonly unknown[];
}
