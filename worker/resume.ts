// The parts of resuming that are not the Durable Object itself: stream ids, the Last-Event-ID a
// client sends, the hash that ties a stream to the Authorization that created it, and the frames
// each event goes out in (SSE with `id: <n>`, or an NDJSON line, resumed by line count).

/** A stream id: 128 random bits as 32 lowercase hex digits (unguessable; the URL names it). */
export function newStreamId(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  let hex = "";
  for (const b of bytes) hex += b.toString(16).padStart(2, "0");
  return hex;
}

export const STREAM_ID = /^[0-9a-f]{32}$/;
const STREAM_PATH = /^\/v1\/streams\/([^/]*)$/;

/** Where a stream is resumed (the answer's Content-Location). */
export const streamPath = (id: string): string => `/v1/streams/${id}`;

/** The id in a `/v1/streams/<id>` path (any text; check it with STREAM_ID), or null for other paths. */
export function streamIdOf(pathname: string): string | null {
  const m = STREAM_PATH.exec(pathname);
  return m ? decodeURIComponent(m[1]!) : null;
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
  if (!/^(0|[1-9][0-9]{0,14})$/.test(raw.trim()))
    return new Error(`${name} must be the index of the last event received (0, 1, 2, …), not ${JSON.stringify(raw.slice(0, 40))}.`);
  return Number(raw.trim());
}

/** SHA-256 of a credential, as hex: what a stream keeps instead of the credential itself. */
export async function credentialHash(value: string): Promise<string> {
  const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(value)));
  let hex = "";
  for (const b of digest) hex += b.toString(16).padStart(2, "0");
  return hex;
}

/** Compares two equally long hex digests without stopping at the first difference. */
export function sameHash(a: string, b: string): boolean {
  if (a.length !== b.length) return false;
  let diff = 0;
  for (let i = 0; i < a.length; i++) diff |= a.charCodeAt(i) ^ b.charCodeAt(i);
  return diff === 0;
}

/** How an answer frames events: SSE (`id: <n>` + data, `[DONE]` at the end) or NDJSON lines. */
export interface Framer {
  event(index: number, json: string): string;
  end: string;
  keepAlive: string | null;
}

export const SSE_FRAMER: Framer = {
  event: (index, json) => `id: ${index}\ndata: ${json}\n\n`,
  end: "data: [DONE]\n\n",
  keepAlive: ": keep-alive\n\n",
};

export const NDJSON_FRAMER: Framer = { event: (_index, json) => `${json}\n`, end: "", keepAlive: null };

/** A number of seconds from a variable (decimals allowed), or the default when unset or invalid. */
export function seconds(value: string | undefined, fallback: number): number {
  const n = Number(value);
  return value !== undefined && value.trim() !== "" && Number.isFinite(n) && n >= 0 ? n : fallback;
}
