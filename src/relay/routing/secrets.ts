// Routing: SPEC §10 "The provider's problems stay the operator's" (every key cut out of what is stored, served and logged).
//
// What of a provider's failure reaches a relay's client (SPEC §10). A provider cuts its key out of a
// refusal; an error *inside* a 200 stream (Anthropic's `event: error`, a Chat chunk with `error`) is
// the provider's object as sent, and a provider that echoes what it got would put the key in the
// relay's storage and every resume: the relay knows the key as the provider's request carries it
// (its credential headers) and cuts it out of any error before it is stored or answered, with the
// package's one rule (internal/secrets.ts). An error whose text is not the package's own (a
// platform's fetch or body error, a ConnectionError naming the provider's host) is not passed on at
// all: the client is told the provider is unavailable, the operator's log has the error.
import { MmspError, toWireError, UpstreamError } from "../../errors.js";
import { cutSecrets, cutSecretsIn, errorWithoutSecrets, secretsOf } from "../../internal/secrets.js";
import { withoutAddresses } from "./redact.js";

export { secretsOf };

/** What a relay's client is told in place of an error whose text the relay does not pass on (its wire type: `UpstreamUnavailable`). */
export class UpstreamUnavailable extends Error {
  override name = "UpstreamUnavailable";
}

/** The relay's own ends of a provider's request (a stop, an abort, a bound: stream-object.ts), passed on as they are. */
const STOPS = ["AbortError", "TimeoutError", "StreamStopped"];

/**
 * `error` as a relay's client may see it: the package's typed errors with every secret cut out (an
 * `UpstreamError` of the same wire form when one held a secret), the relay's own stops as they are,
 * anything else an `UpstreamUnavailable` (the error itself logged, secrets and addresses cut out).
 */
export function withoutSecrets(error: unknown, secrets: readonly string[], client: string): unknown {
  if (error instanceof UpstreamError) return errorWithoutSecrets(error, secrets);
  const name = error instanceof Error ? error.name : "";
  if (error instanceof Error && STOPS.includes(name)) return error;
  if (!(error instanceof MmspError) || name === "ConnectionError") {
    const text = error instanceof Error ? `${name}: ${error.message}` : String(error);
    console.error(`relay: the request to the provider (${client}) failed: ${withoutAddresses(cutSecrets(text, secrets))}`);
    const what = name === "ConnectionError" ? "the request failed before any answer" : "its stream failed (the relay's log has why)";
    return new UpstreamUnavailable(`cannot reach the provider (${client}): ${what}`);
  }
  // the package's own error (a protocol error's preview, a limit): its words, a provider's bytes in them cut
  const wire = toWireError(error);
  const cut = cutSecretsIn(wire, secrets) as typeof wire;
  if (cut === wire) return error;
  return new UpstreamError({
    client,
    status: typeof cut.status === "number" ? cut.status : null,
    errorType: cut.type,
    error: cut,
    message: cut.message,
  });
}
