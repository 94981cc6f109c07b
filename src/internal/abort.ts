/** Abort signals and waits, the ways every part uses them: one signal following another, a wait that ends early, a bounded wait. */

/** Aborts `target` when `signal` aborts (with its reason); at once when it already has. */
export function follow(target: AbortController, signal: AbortSignal | null | undefined): void {
  if (!signal) return;
  if (signal.aborted) target.abort(signal.reason);
  else signal.addEventListener("abort", () => target.abort(signal.reason), { once: true });
}

/** Resolves after `ms` (true), or early (false) when `signal` aborts. */
export function sleep(ms: number, signal: AbortSignal): Promise<boolean> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve(false);
    const done = (): void => {
      clearTimeout(timer);
      resolve(false);
    };
    const timer = setTimeout(() => {
      signal.removeEventListener("abort", done);
      resolve(true);
    }, ms);
    signal.addEventListener("abort", done, { once: true });
  });
}

/** Resolves when `promise` settles or after `ms`, whichever comes first (its timer cleared either way). */
export function within(promise: Promise<unknown>, ms: number): Promise<void> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<void>((resolve) => (timer = setTimeout(resolve, ms)));
  const settled = promise.then(() => {}, () => {});
  return Promise.race([settled, late]).finally(() => clearTimeout(timer));
}
