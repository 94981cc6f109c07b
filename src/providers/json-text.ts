/**
 * JSON texts the package already wrote for values it made (issue #49: a large value is written once).
 * (In providers/: only a provider's reader records, and the reader core never asks.) A Gemini call
 * comes whole: its reader writes its fragment's `arguments` as `JSON.stringify(args)`, and the `.done` of that call holds `args` itself (providers/assembler.ts `joined`). Its text is
 * remembered here, keyed by the object, so that an encoder that writes the `.done` right after it was
 * read (the relay's run loop: relay/stream/run.ts) puts that text in place of stringifying the value
 * again — the same bytes. Only a writer that holds the value unchanged since asks (a value a caller
 * may change in between is written anew: the public encoders never ask).
 */
const texts = new WeakMap<object, string>();

/** Says that `JSON.stringify(value)` is `text` (the value is not changed afterwards). */
export const rememberJsonText = (value: object, text: string): void => void texts.set(value, text);

/** The JSON text remembered for `value`, or undefined. */
export const knownJsonText = (value: object): string | undefined => texts.get(value);
