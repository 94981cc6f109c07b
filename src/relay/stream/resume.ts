// The stream: SPEC §8 (stream ids, Last-Event-ID, the resume path).
//
// The parts of resuming that are not the Durable Object itself: stream ids, the Last-Event-ID a
// client sends, and the frames each event goes out in (SSE with `id: <n>`, or an NDJSON line,
// resumed by line count). Who may resume: bind.ts.

import { hexBytes } from "../../framing/head.js";

/** A stream id: 128 random bits as 32 lowercase hex digits (unguessable; the URL names it). */
export function newStreamId(): string {
  return hexBytes(crypto.getRandomValues(new Uint8Array(16)), "");
}

export const STREAM_ID = /^[0-9a-f]{32}$/;
const STREAM_PATH = /^\/v1\/streams\/([^/]*)$/;

/** Where a stream is resumed (the answer's Content-Location). */
export const streamPath = (id: string): string => `/v1/streams/${id}`;

/**
 * The id in a `/v1/streams/<id>` path (any text; check it with STREAM_ID), or null for other paths.
 * Malformed percent-encoding (`/v1/streams/%`) is kept as it is: not an id, so a 404, never a throw.
 */
export function streamIdOf(pathname: string): string | null {
  const m = STREAM_PATH.exec(pathname);
  if (!m) return null;
  try {
    return decodeURIComponent(m[1]!);
  } catch {
    return m[1]!;
  }
}

/**
 * The index of the last event the client has, from `Last-Event-ID` or `?last_event_id=`:
 * -1 when neither is there (replay from the start), a number, or an Error saying what is wrong.
 */
export function lastEventId(request: Request, url: URL): number | Error {
  const header = request.headers.get("last-event-id");
  const query = url.searchParams.get("last_event_id");
  const raw = header ?? query;
  if (raw === null) return -1;
  const name = header !== null ? "Last-Event-ID" : "last_event_id";
  if (!/^(0|[1-9][0-9]{0,14})$/.test(raw.trim())) {
    return new Error(`${name} must be the index of the last event received (0, 1, 2, …), not ${JSON.stringify(raw.slice(0, 40))}.`);
  }
  return Number(raw.trim());
}

/**
 * How an answer frames events: SSE (`id: <n>` + data, `[DONE]` at the end) or NDJSON lines, each
 * event as `head(n)`, its JSON (sent in slices, never needing it whole), then `tail`.
 */
export interface Framer {
  head(index: number): string;
  tail: string;
  end: string;
  keepAlive: string | null;
}

export const SSE_FRAMER: Framer = {
  head: (index) => `id: ${index}\ndata: `,
  tail: "\n\n",
  end: "data: [DONE]\n\n",
  keepAlive: ": keep-alive\n\n",
};

export const NDJSON_FRAMER: Framer = { head: () => "", tail: "\n", end: "", keepAlive: null };

/** A number of seconds from a variable (decimals allowed), or the default when unset or invalid. */
export function seconds(value: string | undefined, fallback: number): number {
  const n = Number(value);
  return value !== undefined && value.trim() !== "" && Number.isFinite(n) && n >= 0 ? n : fallback;
}
