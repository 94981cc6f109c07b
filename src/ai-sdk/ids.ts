/**
 * Message ids, made with `crypto.getRandomValues` (every target runtime has it, also on pages that
 * are not a secure context, where `crypto.randomUUID` is missing).
 */
const ALPHABET = "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ";

/** `msg-` and 16 random characters of [0-9a-zA-Z] (~95 bits). */
export function generateMessageId(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  let id = "msg-";
  for (const b of bytes) id += ALPHABET[b % ALPHABET.length];
  return id;
}
