/**
 * The errors a provider's `request()` raised about the request it was given (its shape, its
 * content), told apart from any other (the provider's own options, the platform's `Request`): a
 * relay shows the first kind to the client who sent the request, never the second (SPEC §10).
 * Marked where they are raised (provider.ts), so no message is parsed to tell.
 */
const aboutTheRequest = new WeakSet<object>();

/** `error`, marked as about the request given to `request()`. */
export function requestError<T>(error: T): T {
  if (typeof error === "object" && error !== null) aboutTheRequest.add(error);
  return error;
}

/** Whether `error` is a `TypeError` that `request()` raised about the request it was given. */
export function isRequestError(error: unknown): error is TypeError {
  return error instanceof TypeError && aboutTheRequest.has(error);
}
