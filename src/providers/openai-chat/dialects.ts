/**
 * The Chat dialects of compatible servers (SPEC §9), as data the Chat reader consults: where the
 * reasoning text is, which `reasoning_details` entries carry text, the shapes of `content` as an array
 * of chunks, and where a chunk's usage is. Each row was checked against the vendor's API reference:
 * OpenRouter ("Reasoning Tokens": `reasoning`, `reasoning_details`), vLLM and DeepSeek
 * (`reasoning_content`), Mistral (Magistral's `content` chunks), Groq (`x_groq.usage`).
 */
import { isRecord, ownValue } from "../../internal/values.js";

type Rec = Record<string, unknown>;

/** The delta members that carry reasoning as a string (vLLM, DeepSeek: `reasoning_content`; OpenRouter, Groq: `reasoning`). */
export const REASONING_FIELDS = ["reasoning_content", "reasoning"] as const;

/** The delta member with structured reasoning entries (OpenRouter), kept whole for the replay. */
export const DETAILS_FIELD = "reasoning_details";

/**
 * A `reasoning_details` entry's type → the member whose text is the thinking. An encrypted entry (and
 * a type not listed) has none: it is kept, with no text.
 */
export const DETAIL_TEXT: Readonly<Record<string, string>> = { "reasoning.text": "text", "reasoning.summary": "summary" };

/**
 * The members of one entry that stream in pieces over several chunks (same `type` and `index`, the
 * entry's place in the turn's reasoning): their pieces are appended; any other member (`signature`,
 * `id`, `format`) is the entry's latest value. OpenRouter asks for the entries back unmodified and in
 * order, so one index's pieces go back as the one entry they are.
 */
const DETAIL_PIECES: ReadonlySet<string> = new Set(["text", "summary", "data"]);

/** One shape of a `content` chunk: the kind of item it is and its texts. */
export interface ContentChunk {
  kind: "text" | "thinking";
  texts(chunk: Rec): unknown[];
}

/** A `thinking` chunk's texts: its own `text` chunks (Mistral's ThinkChunk), a bare string as one. */
const thinkingTexts = (c: Rec): unknown[] =>
  Array.isArray(c.thinking) ? c.thinking.map((t) => (isRecord(t) && t.type === "text" ? t.text : undefined)) : [c.thinking];

/** `content` as an array of chunks, by the chunk's `type` (Mistral: `text`; `thinking` with its own text chunks). */
export const CONTENT_CHUNKS: Readonly<Record<string, ContentChunk>> = {
  text: { kind: "text", texts: (c) => [c.text] },
  thinking: { kind: "thinking", texts: thinkingTexts },
};

/** Where a chunk's usage is: `usage`, else Groq's `x_groq.usage` (a member of the chunk beside `choices`). */
const USAGE_PATHS: readonly (readonly string[])[] = [["usage"], ["x_groq", "usage"]];

/** The chunk's usage object, at the first of `USAGE_PATHS` that holds one. */
export function usageIn(chunk: Rec): Rec | undefined {
  for (const path of USAGE_PATHS) {
    let at: unknown = chunk;
    for (const key of path) at = isRecord(at) ? at[key] : undefined;
    if (isRecord(at)) return at;
  }
  return undefined;
}

/** The thinking text of a `reasoning_details` entry ("" when it carries none). */
export function detailText(entry: Rec): string {
  const member = typeof entry.type === "string" ? ownValue(DETAIL_TEXT, entry.type) : undefined;
  const text = member === undefined ? undefined : entry[member];
  return typeof text === "string" ? text : "";
}

/**
 * Adds one streamed entry to the entries of a run of reasoning: a copy of its own members, or, when it
 * continues the last entry (same `type` and numeric `index`), a new last entry merging both. Copies are
 * made by `Object.fromEntries`, which defines members: a `__proto__` key stays data, no setter runs.
 */
export function addDetail(entries: Rec[], entry: Rec): void {
  const last = entries[entries.length - 1];
  if (last === undefined || typeof entry.index !== "number" || last.index !== entry.index || last.type !== entry.type) {
    entries.push(Object.fromEntries(Object.entries(entry)));
    return;
  }
  const merged = new Map(Object.entries(last));
  for (const [key, value] of Object.entries(entry)) {
    const was = merged.get(key);
    if (DETAIL_PIECES.has(key) && typeof value === "string" && typeof was === "string") merged.set(key, was + value);
    else if (value !== null && value !== undefined) merged.set(key, value);
  }
  entries[entries.length - 1] = Object.fromEntries(merged);
}
