/**
 * A provider's refusal (a non-2xx answer before any stream byte) → `UpstreamError` (SPEC §9): the
 * provider's HTTP status, MMSP's error type by status, the provider's own message. The body is read
 * and described by the package's one refusal reader (internal/http.ts `refusalOf`: a JSON
 * `{"error": {…}}`, which every provider's error shape is, else the diagnosis of what the body was).
 */
import { UpstreamError } from "../errors.js";
import { refusalOf } from "../internal/http.js";
import { isRecord } from "../internal/values.js";
import type { ProviderSpec } from "./spec.js";

/** MMSP's error type of a refused request, by HTTP status (as MMSP's clients map the SDKs' errors). */
const TYPE_BY_STATUS: Readonly<Record<number, string>> = {
  400: "InvalidRequestError",
  401: "AuthenticationError",
  403: "AuthenticationError",
  404: "NotFoundError",
  413: "InvalidRequestError",
};

/** The error type of a refusal: MMSP's by status, else the provider's own type, else `HTTPError`. */
export function refusalType(status: number, providerType: string | null): string {
  return TYPE_BY_STATUS[status] ?? providerType ?? "HTTPError";
}

/**
 * The `UpstreamError` a provider's refused answer is (its body read up to 64 KiB, then cancelled);
 * `clean` runs on the body's text first (the factory's: the key cut out before any preview is cut).
 */
export async function providerRefusal(
  response: Response,
  spec: ProviderSpec,
  client: string,
  clean?: (text: string) => string,
): Promise<UpstreamError> {
  return providerError(await refusalOf(response, client, clean), response.status, spec, client);
}
/**
 * The refusal `read` (the package's reading of a body: its JSON error, else `HTTPError`) as the
 * provider's: typed by `status` and the provider's own type. Also what a 2xx body that is one JSON
 * error document is (core.ts: `status` 200, SPEC §9).
 */
export function providerError(read: UpstreamError, status: number | null, spec: ProviderSpec, client: string): UpstreamError {
  const error = read.error;
  // read's type is the body's `error.type` (or HTTPError for a body that is no JSON error)
  const own = read.errorType === "HTTPError" || !isRecord(error) ? null : spec.errorType ? spec.errorType(error) : read.errorType;
  const errorType = status === null ? own ?? "HTTPError" : refusalType(status, own);
  return new UpstreamError({ client, status, errorType, error, message: read.message });
}
