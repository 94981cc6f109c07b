/**
 * What the two readers of HTTP answers (`fromResponse`, `fromFetch`) share: who a protocol error is
 * blamed on, and how much of a refused answer's body is read to describe it.
 */

/** How much of a refusal's body is read to describe it. */
const REFUSAL_BODY_LIMIT = 64 * 1024;

/** The URL of a fetch input. */
export function urlOf(input: RequestInfo | URL): string {
  return typeof input === "string" ? input : input instanceof URL ? input.href : input.url;
}

/** Who a protocol error is blamed on: the host of `url` (SPEC §7), else "upstream". */
export function producerOf(url: string | undefined): string {
  try {
    return url ? new URL(url).host || "upstream" : "upstream";
  } catch {
    return "upstream";
  }
}

/** The text of a refused answer's body, at most its first 64 KiB; the rest is not read. */
export async function readRefusalBody(body: ReadableStream<Uint8Array> | null): Promise<string> {
  if (!body) return "";
  const reader = body.getReader();
  const decoder = new TextDecoder();
  let text = "";
  let size = 0;
  try {
    while (size < REFUSAL_BODY_LIMIT) {
      const { done, value } = await reader.read();
      if (done) break;
      size += value.length;
      text += decoder.decode(value, { stream: true });
    }
    text += decoder.decode();
  } finally {
    reader.cancel().catch(() => {});
  }
  return text;
}
