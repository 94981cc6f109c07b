/**
 * The `message` of a stream: a promise that, when awaited while nobody reads the stream's
 * `readable`, makes the package drain the readable itself (so `await stream.message` alone never
 * stalls on backpressure). It is a thenable rather than a native Promise because `await` on a
 * native promise never calls an overridden `then`.
 */
export class MessagePromise<T> implements Promise<T> {
  readonly [Symbol.toStringTag] = "Promise";
  private readonly inner: Promise<T>;
  private resolveInner!: (value: T) => void;
  private rejectInner!: (reason: unknown) => void;
  private asked = false;

  constructor(private readonly drain: () => void) {
    this.inner = new Promise<T>((resolve, reject) => {
      this.resolveInner = resolve;
      this.rejectInner = reject;
    });
    this.inner.catch(() => {}); // a failure nobody awaited is not an unhandled rejection
  }

  resolve(value: T): void {
    this.resolveInner(value);
  }

  reject(reason: unknown): void {
    this.rejectInner(reason);
  }

  private ask(): void {
    if (this.asked) return;
    this.asked = true;
    // Give the caller the rest of this task to start reading `readable` (e.g. `message.then(f)`
    // followed by a `for await` over the readable); only then does the package drain it.
    setTimeout(this.drain, 0);
  }

  then<A = T, B = never>(
    onfulfilled?: ((value: T) => A | PromiseLike<A>) | null,
    onrejected?: ((reason: any) => B | PromiseLike<B>) | null,
  ): Promise<A | B> {
    this.ask();
    return this.inner.then(onfulfilled, onrejected);
  }

  catch<B = never>(onrejected?: ((reason: any) => B | PromiseLike<B>) | null): Promise<T | B> {
    this.ask();
    return this.inner.catch(onrejected);
  }

  finally(onfinally?: (() => void) | null): Promise<T> {
    this.ask();
    return this.inner.finally(onfinally);
  }
}
