// The two functions of `jsr:@std/assert` the README's Deno test uses, with @std/assert's own
// signatures: the machine that checks the snippets reaches the npm registry only, not JSR.
// deno-lint-ignore no-explicit-any
type Constructor<E> = new (...args: any[]) => E;
export declare function assertEquals<T>(actual: T, expected: T, msg?: string): void;
export declare function assertRejects<E extends Error = Error>(fn: () => PromiseLike<unknown>, ErrorClass: Constructor<E>, msgIncludes?: string, msg?: string): Promise<E>;
