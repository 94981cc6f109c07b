// Routing: SPEC §10 "Doors: the APIs a client speaks" (same API in, same provider out: issue #47's
// pass-through, the relay's one request carrying the client's own body, #45).
//
// A door whose API a row's target speaks itself (Messages and Anthropic, Chat Completions and an
// OpenAI Chat target, Gemini's and a Gemini target) registers
// the client's body and headers beside the admitted request (`passThrough`: kept beside the Request,
// never in its bytes, so only a stream answered in this isolate — the stateless path, a request not
// kept — can be passed through). A target of that API is then asked with the client's body as it
// was written (unknown members, `cache_control`, betas) but for what the relay decides: the members
// the door decides (`decide`: the row's model, the reserved output, a stream, Chat's usage chunk) as
// the provider's builder wrote them from the MMSP request the door mapped, whose costlier members were checked
// against the row as at any door (ceilings.ts), and the members the row's `config` sets as on the mapped
// path (`rowsMembers`: what the builder writes from the one merge, configWithin, and not from the
// client's config alone); the key and the provider's headers the builder's,
// with the client's `anthropic-version` / `anthropic-beta` (a beta list joined to the builder's).
// The provider's bytes are tapped as its reader reads them (providers/byte-tap.ts): the reader still
// makes the events the relay checks and meters, and the client gets the bytes, at its own pace
// (`PassedBytes`), with what the relay asked beyond the client taken out again (`answer`). A target of another
// API is asked with the MMSP request: its answer is encoded by the door.
import { tapBytes } from "../../providers/byte-tap.js";
import { isRecord, jsonEqual } from "../../internal/values.js";
import type { UniEvent } from "../../schema.js";

/** What a door passes through: the API's provider name, the client's JSON body, its headers for that provider. */
export interface PassThrough {
  /** The provider (`Provider.name`) that speaks the door's API. */
  readonly provider: string;
  /** The client's parsed body. */
  readonly body: Record<string, unknown>;
  /** The client's headers meant for that provider only (`anthropic-version`, `anthropic-beta`). */
  readonly headers: readonly (readonly [string, string])[];
  /**
   * The body the provider is asked: the client's (`written`), but for the members the relay decides
   * (the row's model, the reserved output, a stream…) as the provider's builder wrote them (`built`).
   */
  readonly decide: (written: Record<string, unknown>, built: Record<string, unknown>) => Record<string, unknown>;
  /** The provider's bytes as the client gets them (what the relay asked beyond the client taken out again); default as they are. */
  readonly answer?: (bytes: ReadableStream<Uint8Array>) => ReadableStream<Uint8Array>;
}

/** A `decide` where the relay's members are `names`: the builder's value, or none when the builder set none. */
export const builderDecides = (names: readonly string[]): PassThrough["decide"] => (written, built) => {
  const body: Record<string, unknown> = { ...written };
  for (const name of names) {
    if (built[name] === undefined) delete body[name];
    else body[name] = built[name];
  }
  return body;
};

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
 * builder's, but for the members the relay decides (`pass.decide`) and those the row's `config` set
 * (where `builtBody`, from the row's config under the client's, differs from `alone`, the builder's
 * body from the client's config alone: `rowsMembers`); the client's headers for the provider set (the
 * key's header is never among them), a beta list joined.
 */
export function passedRequest(
  built: Request,
  builtBody: Record<string, unknown>,
  pass: PassThrough,
  alone: Record<string, unknown> = builtBody,
): Request {
  // (a row whose config adds nothing to the client's, the usual case, leaves every member the client's: not walked)
  const written = alone === builtBody ? pass.body : rowsMembers(pass.body, builtBody, alone) as Record<string, unknown>;
  const body = pass.decide(written, builtBody);
  const headers = new Headers(built.headers);
  for (const [name, value] of pass.headers) {
    const own = headers.get(name);
    if (own === null || !JOINED.has(name)) headers.set(name, value);
    else headers.set(name, [...new Set([...own.split(","), ...value.split(",")].map((v) => v.trim()).filter(Boolean))].join(","));
  }
  return new Request(built.url, { method: "POST", headers, body: JSON.stringify(body), redirect: "manual" });
}

/**
 * The client's `written` body with the members the row's `config` decided (SPEC §10, "A row's settings
 * are the operator's"): where the builder's body from the merged config (`built`, ceilings.ts
 * `configWithin`: the one merge) differs from its body from the client's config alone (`alone`), the
 * builder's value (a member it left out: left out). Objects are compared member by member, so the
 * client's other members beside (say, in Gemini's `generationConfig`) stay; a list the row's items
 * were put before (the row's tools) keeps the client's own items as written after them; any other
 * list or value that differs is the builder's.
 */
export function rowsMembers(written: unknown, built: unknown, alone: unknown): unknown {
  if (isObject(built) && (alone === undefined || isObject(alone)) && (written === undefined || isObject(written))) {
    const own = (written ?? {}) as Record<string, unknown>;
    const other = (alone ?? {}) as Record<string, unknown>;
    let body: Record<string, unknown> | undefined; // (made at the first member that differs: else `written` itself)
    for (const key of new Set([...Object.keys(built), ...Object.keys(other)])) {
      const value = rowsMembers(ownOf(own, key), ownOf(built, key), ownOf(other, key));
      if (value === ownOf(own, key)) continue;
      if (body === undefined) {
        body = Object.create(null) as Record<string, unknown>;
        for (const k of Object.keys(own)) body[k] = own[k];
      }
      if (value === undefined) delete body[key];
      else body[key] = value;
    }
    return body ?? written;
  }
  if (jsonEqual(built, alone)) return written;
  if (Array.isArray(built) && Array.isArray(alone) && Array.isArray(written)) {
    const added = built.length - alone.length;
    if (added > 0 && alone.every((item, i) => jsonEqual(item, built[added + i]))) return [...built.slice(0, added), ...written];
    if (added === 0 && written.length === alone.length) return written.map((item, i) => rowsMembers(item, built[i], alone[i]));
  }
  return built;
}

const ownOf = (o: Record<string, unknown>, key: string): unknown => (Object.hasOwn(o, key) ? o[key] : undefined);
const isObject = (v: unknown): v is Record<string, unknown> => isRecord(v) && !Array.isArray(v);

/**
 * The provider's bytes of a passed-through request (`tap`'s sink registered at once). Nothing reads
 * them ahead: the client's body (`body`) reads the answer's checked events, which pulls the provider's
 * body through its reader, until a chunk of bytes is there; so the client's pace is the provider's,
 * and the events (metered, settled at their end) are read to their end before the client's body ends.
 * A body cut (the connection, a bound, the reader's own stop) cuts the client's too, after every byte
 * the reader read; the client going away cancels the events' reader, which stops the provider (its
 * request aborted: the one way it is stopped).
 */
export class PassedBytes {
  readonly #queue: Uint8Array[] = [];
  #ended: { error?: unknown } | undefined;

  constructor(request: Request, private readonly pass: PassThrough) {
    tapBytes(request, {
      chunk: (b) => {
        if (!this.#ended) this.#queue.push(b);
      },
      end: (error) => {
        this.#ended ??= error === undefined ? {} : { error };
      },
    });
  }

  /** The client's body: the provider's bytes, read as `events` (the answer's, checked and metered; one by one or in batches) are. */
  body(events: ReadableStream<UniEvent | UniEvent[]>): ReadableStream<Uint8Array> {
    const reader = events.getReader();
    const queue = this.#queue;
    let done: { error?: unknown } | undefined;
    const bytes = new ReadableStream<Uint8Array>({
      pull: async (controller) => {
        while (queue.length === 0 && done === undefined) {
          try {
            if ((await reader.read()).done) done = {};
          } catch (error) {
            done = { error };
          }
        }
        if (queue.length > 0) return controller.enqueue(queue.shift()!);
        const cut = this.#ended && "error" in this.#ended ? this.#ended : done;
        if (cut && "error" in cut) controller.error(cut.error);
        else controller.close();
      },
      cancel: (reason) => reader.cancel(reason).catch(() => {}),
    }, { highWaterMark: 0 });
    return this.pass.answer ? this.pass.answer(bytes) : bytes;
  }
}
