// The stream: SPEC §8 (each event sent with its id: `id: <n>` and its JSON as SSE `data`), the form
// its rows are stored in (event-log.ts, issue #49): a batch of whole events as an SSE client is sent
// them, so that an SSE answer sends a row's text as it is, with no framing per client; any other
// framing (NDJSON lines, a door's parse-back) takes each event's JSON out of its frame (their JSON has
// no line break, so a frame's blank line ends it).
//
// A row's UTF-8 bytes are made once, when it is written: stored as they are (a BLOB) and sent as they
// are to an SSE client served from memory (issue #49: one encoding for both, not one by the storage
// and one per answer). A large event's JSON is cut into parts never inside a surrogate pair, so each
// part is text on its own (its bytes exact, read back alone: a cut pair would be two U+FFFD).
import { type Framer, SSE_FRAMER } from "./resume.js";

/**
 * Rows as the window holds them: events `seq…seq + n - 1` as SSE frames, `at` each frame's offset in
 * `text` and then its end, `bytes` the text's UTF-8; or one large event's JSON (`at` null), `cuts` its
 * parts' offsets and then its end, `bytes` each part's UTF-8.
 */
export type Row =
  | { seq: number; n: number; text: string; at: number[]; bytes: Uint8Array | null; cuts?: undefined }
  | { seq: number; n: 1; text: string; at: null; bytes: Uint8Array[]; cuts: number[] };

/** A stored row's data: its text (a BLOB, the bytes written since issue #49, decoded). */
export const textOf = (data: string | ArrayBuffer): string => (typeof data === "string" ? data : utf8Decoder.decode(data));
const utf8Decoder = new TextDecoder();

/** Where a JSON text longer than `size` units is cut into parts of at most `size`: never between a surrogate pair's units. */
export function cutsOf(json: string, size: number): number[] {
  const cuts = [0];
  for (let at = 0; at < json.length;) {
    let to = Math.min(at + size, json.length);
    if (to < json.length && (json.charCodeAt(to - 1) & 0xfc00) === 0xd800 && (json.charCodeAt(to) & 0xfc00) === 0xdc00) to--;
    cuts.push(at = to);
  }
  return cuts;
}

/**
 * `events` (the first one's index `first`) as rows: whole events framed, at most `size` units a row;
 * an event larger than that in rows of its own, one per part (`cutsOf`). Each row given to `store`
 * (`seq`, `part`, `n`: see event-log.ts) as its UTF-8, made once; the rows, for the window.
 */
export function rowsOf(
  events: readonly string[],
  first: number,
  size: number,
  store: (seq: number, part: number, n: number, data: Uint8Array) => void,
): Row[] {
  const out: Row[] = [];
  // (events[from…i) framed for one row: `text`, `at` their frames' offsets)
  let from = 0;
  let text = "";
  let at: number[] = [];
  const gathered = (to: number): void => {
    if (to > from) {
      at.push(text.length);
      const bytes = utf8.encode(text);
      store(first + from, 0, to - from, bytes);
      out.push({ seq: first + from, n: to - from, text, at, bytes });
    }
    from = to;
    text = "";
    at = [];
  };
  for (let i = 0; i < events.length; i++) {
    const json = events[i]!;
    if (json.length > size) {
      gathered(i);
      const cuts = cutsOf(json, size);
      const bytes: Uint8Array[] = [];
      for (let part = 0; part + 1 < cuts.length; part++) {
        bytes.push(utf8.encode(json.slice(cuts[part], cuts[part + 1])));
        store(first + i, part, part + 2 === cuts.length ? 1 : 0, bytes[part]!);
      }
      out.push({ seq: first + i, n: 1, text: json, at: null, bytes, cuts });
      from = i + 1;
      continue;
    }
    const frame = SSE_FRAMER.head(first + i) + json + SSE_FRAMER.tail;
    if (i > from && text.length + frame.length > size) gathered(i);
    at.push(text.length);
    text += frame;
  }
  gathered(events.length);
  return out;
}

const utf8 = new TextEncoder();

/** A stored row of whole events in the SSE form (`data` its frames), with its frames' offsets. */
export function framedRow(seq: number, n: number, data: string): Row {
  const at = [0];
  for (let k = 1, from = 0; k <= n; k++) at.push(from = data.indexOf(SSE_FRAMER.tail, from) + SSE_FRAMER.tail.length);
  return { seq, n, text: data, at, bytes: null };
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
