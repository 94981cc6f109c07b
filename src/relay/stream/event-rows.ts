// The stream: SPEC §8 (each event sent with its id: `id: <n>` and its JSON as SSE `data`), the form
// its rows are stored in (event-log.ts, issue #49): a batch of whole events as an SSE client is sent
// them, so that an SSE answer sends a row's text as it is, with no framing per client; any other
// framing (NDJSON lines, a door's parse-back) takes each event's JSON out of its frame (their JSON has
// no line break, so a frame's blank line ends it).
import { type Framer, SSE_FRAMER } from "./resume.js";

/**
 * Rows as the window holds them: events `seq…seq + n - 1` as SSE frames, `at` each frame's offset in
 * `text` and then its end; or one large event's JSON (`at` null), its parts cut when served.
 */
export interface Row {
  seq: number;
  n: number;
  text: string;
  at: number[] | null;
}

/** A stored row of whole events in the SSE form (`data` its frames), with its frames' offsets. */
export function framedRow(seq: number, n: number, data: string): Row {
  const at = [0];
  for (let k = 1, from = 0; k <= n; k++) at.push(from = data.indexOf(SSE_FRAMER.tail, from) + SSE_FRAMER.tail.length);
  return { seq, n, text: data, at };
}

/** The JSON of event `row.seq + k` of a framed row, taken out of its frame. */
export const jsonOf = (row: Row, k: number): string =>
  row.text.slice(row.at![k]! + SSE_FRAMER.head(row.seq + k).length, row.at![k + 1]! - SSE_FRAMER.tail.length);

/** Events `row.seq + k…` of a framed row as `framer` frames them: the row's text itself for SSE. */
export function framed(row: Row, k: number, framer: Framer): string {
  if (framer === SSE_FRAMER) return k === 0 ? row.text : row.text.slice(row.at![k]);
  let text = "";
  for (; k < row.n; k++) text += framer.head(row.seq + k) + jsonOf(row, k) + framer.tail;
  return text;
}
