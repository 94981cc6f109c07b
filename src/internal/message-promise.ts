/**
 * The `message` of a stream: a real Promise that, when awaited while nobody reads the stream's
 * `readable`, makes the package drain the readable itself (so `await stream.message` alone never
 * stalls on backpressure).
 *
 * It is a Promise subclass whose `then` asks for the drain: `await`, `Promise.all`, `.catch` and
 * `.finally` all go through `then` for a subclass instance (only a plain `Promise` is adopted
 * without calling it). Derived promises are plain Promises (`Symbol.species`).
 *
 * Why the outcome waits for the drain check: the check runs at the end of the task in which the
 * message is first awaited; if the message could settle before it (a body that arrived in one
 * chunk is read at once), the caller would see the readable unlocked after `await message` for
 * one chunking and locked for another. Settling only after the check makes the drain/lock
 * behaviour the same however the body was chunked (SPEC §7).
 */
export class MessagePromise<T> extends Promise<T> {
  static override get [Symbol.species](): PromiseConstructor {
    return Promise;
  }

  private readonly settle: { resolve: (value: T) => void; reject: (reason: unknown) => void };
  private drain: (() => void) | undefined;
  /** Settles the promise the way it first ended (held until the drain check has run). */
  private outcome: (() => void) | undefined;
  /** The drain check has run (or no drain will ever be asked for). */
  private checked = false;

  constructor(drain: () => void) {
    let settle!: { resolve: (value: T) => void; reject: (reason: unknown) => void };
    super((resolve, reject) => {
      settle = { resolve, reject };
    });
    this.settle = settle;
    this.drain = drain;
    // A failure nobody awaited is not an unhandled rejection (and this is no request to drain).
    Promise.prototype.then.call(this, undefined, () => {});
  }

  resolve(value: T): void {
    this.outcome ??= () => this.settle.resolve(value);
    this.flush();
  }

  reject(reason: unknown): void {
    this.outcome ??= () => this.settle.reject(reason);
    this.flush();
  }

  private flush(): void {
    if (this.checked) this.outcome?.();
  }

  override then<A = T, B = never>(
    onfulfilled?: ((value: T) => A | PromiseLike<A>) | null,
    // deno-lint-ignore no-explicit-any -- Promise.prototype.then's own signature (an override must match it)
    onrejected?: ((reason: any) => B | PromiseLike<B>) | null,
  ): Promise<A | B> {
    const drain = this.drain;
    if (drain) {
      this.drain = undefined;
      // Give the caller the rest of this task to start reading `readable` (e.g. `message.then(f)`
      // followed by a `for await` over the readable); only then does the package drain it.
      setTimeout(() => {
        drain();
        this.checked = true;
        this.flush();
      }, 0);
    }
    return super.then(onfulfilled, onrejected);
  }
}
