// The provider's credentials kept out of what a provider-backed stream stores and serves. A provider
// cuts its key out of a refusal; an error *inside* a 200 stream (Anthropic's `event: error`, a Chat
// chunk with `error`) is the provider's object as sent, and a provider that echoes what it got would
// put the key in the relay's storage and every resume. The relay knows the key as the provider's
// request carries it (its credential headers), so it cuts it out of any error before it is stored.
import { toWireError, UpstreamError } from "../errors.js";

/** The headers a provider's request carries its key in (the value, or a Bearer token's). */
const KEY_HEADERS = ["authorization", "x-api-key", "x-goog-api-key", "api-key"];

/** The secrets of a provider's request: each credential header's value and, for `Bearer <token>`, the token. */
export function secretsOf(request: Request): string[] {
  const out: string[] = [];
  for (const name of KEY_HEADERS) {
    const value = request.headers.get(name);
    if (!value) continue;
    const token = /^Bearer\s+(\S+)$/i.exec(value)?.[1];
    out.push(value, ...(token ? [token] : []));
  }
  // (a secret of a few characters would cut ordinary text: a real key is long)
  return out.filter((s) => s.length >= 8).sort((a, b) => b.length - a.length);
}

/** `error`, or when its wire form repeats a secret, an `UpstreamError` of the same wire form with every secret cut out. */
export function withoutSecrets(error: unknown, secrets: readonly string[], client: string): unknown {
  const text = JSON.stringify(toWireError(error)) ?? "";
  if (!secrets.some((s) => text.includes(s))) return error;
  let cut = text;
  for (const s of secrets) cut = cut.split(s).join("[api key]");
  const wire = JSON.parse(cut) as { type?: string; message?: string; status?: unknown };
  return new UpstreamError({
    client,
    status: typeof wire.status === "number" ? wire.status : null,
    errorType: wire.type ?? "UpstreamError",
    error: wire,
    message: wire.message ?? "the provider's error (its text held the provider's key, cut out)",
  });
}
