/**
 * The placeholder that stands in a line's text where a capture took a long base64 string (see
 * base64-capture.ts): never valid base64, so never confused with data. In a module of its own so that
 * what only shows or finds it (previews) does not pull in the capture.
 */
export const BYTES_SENTINEL = "\u0000mmsp-streams:captured-bytes\u0000";
/** The sentinel as JSON string content. */
export const BYTES_SENTINEL_JSON = "\\u0000mmsp-streams:captured-bytes\\u0000";
