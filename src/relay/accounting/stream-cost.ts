// Accounting: SPEC §10 "Principals and quotas" (every way out after a claim settles it, once).
//
// SPEC §10, "Principals and quotas", and SPEC §8's last sentence: a stream's claim is settled when the
// stream ends, however it ends — with the provider's usage after its stop event, else with what the
// relay estimates (usage-estimate.ts), marked estimated — and the error event that ends a stream
// early carries `usage_metadata` (the four counts as far as known) and `usage_estimated`.
//
// The Worker hands a stream's object its claim in CLAIM_HEADER (what settling needs: no quota, no
// key); the object follows the stream's events with a StreamCost and settles at its end
// (stream-object.ts). The stateless relay does the same around its pipe (`metered`).
import { passing, readsOf } from "../reads.js";
import { fromWireError, toWireError, type WireError } from "../../errors.js";
import type { UniEvent, UsageMetadata } from "../../schema.js";
import type { Claim, Settlement } from "./quota.js";
import { type Reported, trustedInput, UsageMeter } from "./usage-estimate.js";
import { parseJsonText } from "../../internal/json.js";

/** The header through which the Worker hands a stream's object its claim (removed from every client's request). */
export const CLAIM_HEADER = "x-relay-claim";

/** What a stream's settlement needs of its claim. */
export interface Ticket {
  id: string;
  principal: string;
  model: string;
  input: number;
}

/** What a stream's settlement needs of `claim`. */
export const ticketFrom = (claim: Claim): Ticket => ({ id: claim.id, principal: claim.principal, model: claim.model, input: claim.input });

/** The header value of a claim: its JSON percent-encoded (a principal's or a model's name may be any text; a header is Latin-1). */
export const ticketHeader = (claim: Claim): string => encodeURIComponent(JSON.stringify(ticketFrom(claim)));

/** The ticket of a CLAIM_HEADER value (set by the Worker only), or null. */
export function ticketOf(text: string | null): Ticket | null {
  if (text === null) return null;
  try {
    const t = parseJsonText(decodeURIComponent(text)) as Partial<Ticket>;
    const ok = typeof t.id === "string" && typeof t.principal === "string" && typeof t.model === "string" && typeof t.input === "number";
    return ok ? (t as Ticket) : null;
  } catch {
    return null;
  }
}

/**
 * A stream's cost as stored: its settlement so far, the usage an error event ending it carries, and
 * `asked`: one provider request's input (the first count a provider reported for the stream, else the
 * claim's estimate), what a request sent and not yet answered is counted (`withRequest`).
 */
export interface CostSnapshot {
  settlement: Settlement;
  usage: { usage_metadata: unknown; usage_estimated: unknown };
  asked?: number;
}

/** One request's input as `s` knows it (a snapshot stored before `asked` was: its input so far, the first request's). */
export const askedOf = (s: CostSnapshot): number => s.asked ?? s.settlement.input;

/**
 * `s` with one provider request more sent (a continuation, SPEC §10 "A stream outlives its object"),
 * its own input counted now: `input`, the request's (one request's, `asked`, plus the prefix it
 * carries: routing/continuation.ts `requestInput`), else `asked` alone; marked estimated. Stored in
 * the duty before the request leaves, so an object that dies before its target answers still charges
 * it (once: what the target reports replaces it, stream/run.ts `takeUp`).
 */
export function withRequest(s: CostSnapshot, input?: number): CostSnapshot {
  const asked = askedOf(s);
  const more = input !== undefined && Number.isSafeInteger(input) && input >= asked ? input : asked; // (never less than one request's)
  const metadata = s.usage.usage_metadata as UsageMetadata | null;
  const prompt = metadata === null ? null : { ...metadata, prompt_tokens: (metadata.prompt_tokens ?? 0) + more };
  return {
    settlement: { ...s.settlement, input: s.settlement.input + more, estimated: s.settlement.estimated + more },
    usage: { usage_metadata: prompt, usage_estimated: true },
    asked,
  };
}

/** A stored snapshot (this object's own JSON), or null when it is not one. */
export function snapshotOf(text: string | null): CostSnapshot | null {
  if (text === null) return null;
  try {
    const s = parseJsonText(text) as Partial<CostSnapshot>;
    const t = s.settlement as Partial<Settlement> | undefined;
    const ok = typeof t === "object" && t !== null && typeof t.id === "string" && typeof t.input === "number" &&
      typeof t.output === "number" && typeof s.usage === "object" && s.usage !== null;
    if (!ok) return null;
    const { asked, ...rest } = s as CostSnapshot;
    return typeof asked === "number" && Number.isSafeInteger(asked) && asked >= 0 ? { ...rest, asked } : rest;
  } catch {
    return null;
  }
}

/** The input requests a refused answer's fallbacks moved past had spent (routing/fallback.ts `spentBefore`). */
export interface Spent {
  input: number;
  /** How much of it is the relay's estimate. */
  estimated: number;
}

/** One stream's cost: its events followed, its ending error marked with the usage, its settlement. */
export class StreamCost {
  readonly #meter: UsageMeter;
  /** What the provider serving the stream reported so far (models.ts `reportedUsageOf`), when a provider serves it. */
  #reported: () => Reported | null = () => null;
  /** One request's input (CostSnapshot's `asked`): given (a stream taken up), else the first input the provider reported. */
  #asked: number | null;
  /** A continuation request was sent and no event came since (`sent`: its input): its snapshot counts it (`withRequest`). */
  #sending: number | null = null;
  constructor(readonly ticket: Ticket, asked: number | null = null) {
    this.#meter = new UsageMeter(ticket.input);
    this.#asked = asked;
  }

  /** Follows what the provider that serves the stream reports (its answer's `reportedUsageOf`). */
  follow(reported: (() => Reported | null) | undefined): void {
    if (reported) this.#reported = reported;
  }

  /** One event of the stream, as stored or sent. */
  see(event: UniEvent): void {
    this.#sending = null; // (the continuation's first event: what its target reported is in `reported` now)
    this.#meter.see(event);
  }

  /** A continuation request is about to leave, asking `input` tokens: counted in the snapshots (`withRequest`) until the next event. */
  sent(input: number): void {
    this.#sending = input;
  }

  /** The error that ends the stream, with the usage so far (`usage_metadata`, `usage_estimated`). */
  mark(error: WireError): WireError {
    this.#sending = null; // (the stream ends: a continuation sent is in what its target reported, or charged by `reported`)
    const { usage_metadata, usage_estimated } = this.#meter.spent(this.#reported());
    return { ...error, usage_metadata, usage_estimated };
  }

  /** The settlement of the stream as it stands. */
  settlement(): Settlement {
    const { input, output, estimated, stopped } = this.#meter.spent(this.#reported());
    return { ...this.#base(), input, output, estimated, stopped };
  }

  /**
   * What the stream cost so far, as its object stores it with each batch of events (store.ts): a
   * restarted object settles the dead one's stream from it (SPEC §10 "A stream outlives its object").
   */
  snapshot(): CostSnapshot {
    const reported = this.#reported();
    // (the first count: one request's, stored at once when the answer opens; a continued answer's counts are several requests')
    if (reported?.estimated_input === undefined) this.#asked ??= trustedInput(reported);
    const { usage_metadata, usage_estimated } = this.#meter.spent(reported);
    const s = { settlement: this.settlement(), usage: { usage_metadata, usage_estimated }, asked: this.#asked ?? this.ticket.input };
    return this.#sending === null ? s : withRequest(s, this.#sending);
  }

  /**
   * The settlement of a request refused before any event: the provider's refusal spent nothing, but
   * the requests before it that a provider took (a fallback moved past them: routing/fallback.ts
   * `spentBefore`) are charged their input.
   */
  refused(spent?: Spent): Settlement {
    return { ...this.#base(), input: spent?.input ?? 0, output: 0, estimated: spent?.estimated ?? 0, stopped: false };
  }

  #base(): Pick<Settlement, "id" | "principal" | "model"> {
    return { id: this.ticket.id, principal: this.ticket.principal, model: this.ticket.model };
  }
}

/**
 * The stateless relay's events (one by one, or one array per provider chunk) with their cost
 * followed: settled once, at the end, the error or the cancel (the client gone); an error passed on
 * marked with the usage (an UpstreamError as the next reader sees it). Its reads, and its source's,
 * may be taken directly (reads.ts: no stream hop per read on the way to a door's encoder).
 */
export function metered<T extends UniEvent | UniEvent[]>(
  readable: ReadableStream<T>,
  cost: StreamCost,
  client: string,
  settle: (s: Settlement) => void,
): ReadableStream<T> {
  const source = readsOf(readable);
  let settled = false;
  const end = (): void => {
    if (!settled) settle(cost.settlement());
    settled = true;
  };
  const read = async (): Promise<ReadableStreamReadResult<T>> => {
    let r: ReadableStreamReadResult<T>;
    try {
      r = await source.read();
    } catch (e) {
      const marked = fromWireError(cost.mark(toWireError(e)), null, client);
      end();
      throw marked;
    }
    if (r.done) end();
    else if (Array.isArray(r.value)) { for (const event of r.value) cost.see(event); }
    else cost.see(r.value as UniEvent);
    return r;
  };
  return passing(read, (reason) => {
    end();
    return source.cancel(reason).catch(() => {});
  });
}
