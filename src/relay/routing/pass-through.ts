// Routing: SPEC §10 "Doors: the APIs a client speaks" (same API in, same provider out: issue #47's
// pass-through, the relay's one request carrying the client's own body, #45).
//
// A door whose API a row's target speaks itself (the Messages door, an Anthropic target) registers
// the client's body and headers beside the admitted request (`passThrough`: kept beside the Request,
// never in its bytes, so only a stream answered in this isolate — the stateless path, a request not
// kept — can be passed through). A target of that API is then asked with the client's body as it
// was written (unknown members, `cache_control`, betas) but for what the relay decides: the members
// the door names as its own (the row's model, the reserved output, `stream`) as the provider's
// builder wrote them from the MMSP request the door mapped, whose costlier members were checked
// against the row as at any door (ceilings.ts); the key and the provider's headers the builder's,
// with the client's `anthropic-version` / `anthropic-beta` (a beta list joined to the builder's).
// The provider's bytes are tapped as its reader reads them (providers/byte-tap.ts): the reader still
// makes the events the relay checks and meters, and the client gets the bytes. A target of another
// API is asked with the MMSP request: its answer is encoded by the door.
import { tapBytes } from "../../providers/byte-tap.js";
import { isRecord } from "../../internal/values.js";

/** What a door passes through: the API's provider name, the client's JSON body, its headers for that provider. */
export interface PassThrough {
  /** The provider (`Provider.name`) that speaks the door's API. */
  readonly provider: string;
  /** The client's parsed body. */
  readonly body: Record<string, unknown>;
  /** The client's headers meant for that provider only (`anthropic-version`, `anthropic-beta`). */
  readonly headers: readonly (readonly [string, string])[];
  /** The members the relay decides: the builder's value, or none when the builder set none (`model`, the output limit, `stream`…). */
  readonly owned: readonly string[];
}

const PASSED = new WeakMap<Request, PassThrough>();

/** Registers `request` (an admitted request) as one a target of `pass.provider` answers in its own bytes. */
export function passThrough(request: Request, pass: PassThrough): void {
  if (isRecord(pass.body)) PASSED.set(request, pass);
}

/** The pass-through registered for `request`, if any. */
export const passThroughOf = (request: Request): PassThrough | undefined => PASSED.get(request);

/** Headers of the provider's that a client's value joins rather than replaces (comma lists). */
const JOINED = new Set(["anthropic-beta"]);

/**
 * The provider's request (`built`: URL, key, its headers) with the client's body instead of the
 * builder's, but for the members the relay decides (`owned`, as the builder wrote them); the
 * client's headers for the provider set (the key's header is never among them), a beta list joined.
 */
export function passedRequest(built: Request, builtBody: Record<string, unknown>, pass: PassThrough): Request {
  const body: Record<string, unknown> = { ...pass.body };
  for (const name of pass.owned) {
    if (builtBody[name] === undefined) delete body[name];
    else body[name] = builtBody[name];
  }
  const headers = new Headers(built.headers);
  for (const [name, value] of pass.headers) {
    const own = headers.get(name);
    if (own === null || !JOINED.has(name)) headers.set(name, value);
    else headers.set(name, [...new Set([...own.split(","), ...value.split(",")].map((v) => v.trim()).filter(Boolean))].join(","));
  }
  return new Request(built.url, { method: "POST", headers, body: JSON.stringify(body), redirect: "manual" });
}

/**
 * The provider's bytes of `request` as a stream the client reads (the reader's pulls fill it; its
 * cancel stops the provider). Every byte the reader read reaches the client, then the end: a body
 * cut (the connection, a bound, the reader's own stop after an error event) cuts the client's too.
 */
export function passedBytes(request: Request, stop: (reason: unknown) => void): ReadableStream<Uint8Array> {
  const queue: Uint8Array[] = [];
  let ended: { error?: unknown } | undefined;
  let wake: (() => void) | undefined;
  const woken = (): void => {
    wake?.();
    wake = undefined;
  };
  tapBytes(request, {
    chunk: (b) => {
      if (ended) return;
      queue.push(b);
      woken();
    },
    end: (error) => {
      ended ??= error === undefined ? {} : { error };
      woken();
    },
  });
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      while (queue.length === 0 && !ended) await new Promise<void>((r) => (wake = r));
      if (queue.length > 0) controller.enqueue(queue.shift()!);
      else if ("error" in ended!) controller.error(ended!.error);
      else controller.close();
    },
    cancel: (reason) => stop(reason),
  }, { highWaterMark: 0 });
}
