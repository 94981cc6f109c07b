/**
 * A `UIMessage` part that has no MMSP form (`toMmspMessages`). Names the part by its place and
 * type, so the caller can drop or translate it.
 */
import { MmspError } from "../index.js";

/** A `UIMessage` part (or message) that `toMmspMessages` cannot turn into MMSP, named by its place and type. */
export class UIMessageConversionError extends MmspError {
  /** `"UIMessageConversionError"`. */
  override name = "UIMessageConversionError";
  /** Index of the message in the array given. */
  messageIndex: number;
  /** Index of the part in that message's `parts`, or null when the message itself is the problem. */
  partIndex: number | null;
  /** The part's `type` (or the message's role when `partIndex` is null). */
  partType: string;

  /** The message says where the part is, what it is and why it cannot be converted (`reason`). */
  constructor(fields: { messageIndex: number; partIndex: number | null; partType: string; reason: string }) {
    const where = fields.partIndex === null
      ? `messages[${fields.messageIndex}]`
      : `messages[${fields.messageIndex}].parts[${fields.partIndex}]`;
    const what = fields.partIndex === null ? `role ${JSON.stringify(fields.partType)}` : `type ${JSON.stringify(fields.partType)}`;
    super(`toMmspMessages: ${where} (${what}) cannot be converted to MMSP: ${fields.reason}`);
    this.messageIndex = fields.messageIndex;
    this.partIndex = fields.partIndex;
    this.partType = fields.partType;
  }
}
