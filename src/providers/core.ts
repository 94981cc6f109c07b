/**
 * The reading core of every provider: bytes → the package's SSE framer (strict UTF-8) → each record's
 * `data` parsed (`[DONE]` passed as the string) → the provider's `EventReader` → fragments (SPEC §5)
 * → the assembler (assemble mode), which makes the public stream, every `.done` and the stop event.
 * A record's failure is located where the framer is, the end's after the last record (fault.ts), so
 * a provider file never restates a rule of the stream.
 *
 * The end (SPEC §9): a reader whose `end()` returns reached its provider's own end, so the answer is
 * whole — usage it never reported is a stop with four null counts, a finish reason it never gave is
 * `unknown`, each said through `onWarning`. A body that made no item and no stream of this provider
 * (empty, an HTML page, a JSON document, MMSP's or another provider's stream) is `NOT-A-STREAM` with
 * the MMSP reader's diagnosis (diagnose.ts, loaded only then), a JSON error document the provider's
 * refusal. Whatever the package raises about the stream is a `StreamProtocolError` blaming the provider.
 */
import { LiveMessage } from "../assemble/live-message.js";
import { parseJson, parseJsonLineAt } from "../decode/record.js";
import { EmptyResponseError, MmspError } from "../errors.js";
import { type BodyContext, createFramer, type Framer } from "../framing/framer.js";
import { HEAD_BYTES } from "../framing/head.js";
import { joinBytes } from "../internal/bytes.js";
import type { StreamCore } from "../internal/core.js";
import { Fault, locate } from "../internal/fault.js";
import { isRecord } from "../internal/values.js";
import { keptCounts, MAX_TOKEN_COUNT, mergeUsage, noUsage } from "../internal/usage.js";
import { HeldBudget, limitError, type LimitOptions, resolveLimits } from "../internal/limits.js";
import type { ReaderParts } from "../internal/reader-stream.js";
import { endOf } from "../read/position.js";
import { ReadTimings } from "../read/timings.js";
import type { DeltaItem, FinishReason, UniEvent, UniMessage, UsageMetadata } from "../schema.js";
import type { EventReader, FragmentSink } from "./event-reader.js";
import { isBound, modelName, provenance } from "./provenance.js";
import { ProviderAssembler } from "./assembler.js";
import type { ProviderSpec } from "./spec.js";

/**
 * Something of a provider's answer said through `onWarning`: a part the reader skipped (it has no
 * UniEvent kind), what a whole answer lacked (SPEC §9: the provider reached its own end without
 * reporting usage, or without a finish reason; the stop event then carries null counts, or `unknown`),
 * or a count the provider sent that is no count (SPEC §9, §10: not a whole number ≥ 0 within
 * `MAX_TOKEN_COUNT`; the stop event and `reportedUsage` carry `null` for it).
 */
export interface ProviderWarning {
  /**
   * `"skipped"`: a part of the answer skipped; `"missing"`: usage or a finish reason the provider never
   * sent; `"invalid"`: a usage count the provider sent that is not a whole number ≥ 0 within bounds (`null` instead).
   */
  type: "skipped" | "missing" | "invalid";
  /**
   * 0-based index of the provider's event (SSE message) that carried it; for `"missing"`, the end (one
   * past the last event); for `"invalid"` counts the reader holds until the end (Gemini's), the end.
   */
  eventIndex: number;
  /** A sentence saying what was skipped, or what was missing and what the stop event carries instead. */
  message: string;
}

/** How much of a body that holds no record is kept, to read it whole as a JSON error document (as much as a refusal's). */
const BODY_KEPT = 64 * 1024;

/** The usage of a whole answer whose provider reported none (SPEC §9). */
const NO_USAGE = { cached_tokens: null, prompt_tokens: null, thoughts_tokens: null, response_tokens: null };

/** How the core reads (checked at the boundary: provider-event-stream.ts). */
export interface ProviderCoreOptions extends LimitOptions {
  /** Names the provider in errors; default the provider's name. */
  client?: string;
  /** Called for what the reader skipped (a server-side tool block…). */
  onWarning?: (warning: ProviderWarning) => void;
  /**
   * The most bytes read from the provider's body, whatever they make (keep-alives and skipped events
   * too); past it a `StreamLimitError` (`limit: "maxResponseBytes"`). Default: no bound (a relay sets one).
   */
  maxResponseBytes?: number;
}

type Emit = (event: UniEvent) => void;

/**
 * One core per provider that read its spec's `sample` to the end, kept for the isolate's life (issue #39).
 * The hidden classes of the objects a stream makes (its core, framer, reader, assembler, groups) die with
 * the stream when nothing of theirs is left, and a garbage collection then drops the optimized code and
 * the feedback built on them, so the next stream compiles its hot path again (bench/PROFILE.md: after a
 * full GC, about half a stream's CPU). A finished stream of canned data keeps those shapes alive; it holds
 * nothing of any caller's.
 */
const primed = new WeakMap<ProviderSpec, ProviderCore | null>();

function prime(spec: ProviderSpec): void {
  const sample = spec.sample;
  if (sample === undefined || primed.has(spec)) return;
  primed.set(spec, null); // (before the core is made: its constructor comes back here)
  try {
    const core = new ProviderCore(spec, {});
    const none = (): void => {};
    core.push(new TextEncoder().encode(sample.map((r) => `data: ${typeof r === "string" ? r : JSON.stringify(r)}\n\n`).join("")), none);
    if (core.end(none) === undefined) primed.set(spec, core);
  } catch {
    // a sample that does not read whole primes nothing (its stream is no caller's)
  }
}

/** @internal The fused provider reader: framer → JSON → the provider's reader → the assembler. */
export class ProviderCore implements StreamCore<Uint8Array, UniEvent>, ReaderParts, FragmentSink {
  private readonly framer: Framer;
  private readonly reader: EventReader;
  private readonly grammar: ProviderAssembler;
  private readonly client: string;
  private readonly maxDepth: number;
  private readonly onWarning: ((warning: ProviderWarning) => void) | undefined;
  readonly live: LiveMessage;
  readonly timings: ReadTimings;
  readonly finished = false;
  private emit: Emit = () => {};
  /** Why the provider stopped, when it said so (for an answer with no content: `EmptyResponseError`). */
  private why: string | undefined;
  /** What the reader holds back, counted against the limits as it arrives. */
  private readonly held: HeldBudget;
  private readonly maxResponseBytes: number;
  /** Bytes read from the provider's body so far. */
  private bytesRead = 0;
  /** The reader wrote usage / a finish reason / anything but an item (a body it wrote nothing for may be no stream of its). */
  private gotUsage = false;
  private gotFinish = false;
  private said = false;
  /** The body's first bytes (all of it, up to `BODY_KEPT`, while it held no record), and its size. */
  private kept: Uint8Array[] = [];
  private keptBytes = 0;
  /** The model the stream named last, once it did (the provenance of bound fidelity: provenance.ts). */
  private model: string | undefined;

  /**
   * @param context what the response said of the body (read at the end: a provider's `stream()` fills it
   *   in when the answer comes): its headers for the diagnosis, its status for a JSON error document
   */
  constructor(
    private readonly spec: ProviderSpec,
    options: ProviderCoreOptions,
    private readonly context: BodyContext = {},
  ) {
    const client = (this.client = options.client ?? spec.name);
    const limits = resolveLimits(options);
    this.maxDepth = limits.maxDepth;
    this.held = new HeldBudget(limits);
    this.maxResponseBytes = options.maxResponseBytes ?? Infinity;
    this.onWarning = options.onWarning;
    // assemble mode's grammar itself (with the providers' short way), not createGrammar("assemble"), whose other branch would bring the validator into the bundle
    this.grammar = new ProviderAssembler(client, limits);
    this.timings = new ReadTimings(this.grammar);
    // followed from the first snapshot() or subscribe() on: a reader that never asks pays nothing per event
    const grammar = this.grammar;
    this.live = new LiveMessage(() => grammar.liveSeed(), this.timings);
    this.reader = spec.reader(client);
    this.framer = createFramer("sse", {
      stage: "ProviderEventStream",
      client,
      maxEventBytes: limits.maxEventBytes,
      strictUtf8: true,
      keepUnterminated: true, // a last message whose blank line never came is read (flagged: a cut inside its JSON is a truncation)
      capture: null, // (the capture is for MMSP inline_data items; a provider's records are parsed whole)
      explain: null,
    });
    prime(spec);
  }

  message(): UniMessage | undefined {
    return this.grammar.message;
  }

  // ---- FragmentSink: what the provider's reader writes -------------------------------------------

  item(item: DeltaItem, key: string, parsed?: Record<string, unknown>): void {
    // a fragment that continues the open item as it is: added and emitted at once (assembler.ts)
    if (this.grammar.continues(item as unknown as Record<string, unknown>, key, this.at, this.emit)) return;
    // the reader hands the fragment over (each is made for this call): its fidelity gains the key in place
    const f = item as { fidelity?: Record<string, unknown> | null };
    // data only its maker can verify says who made it (SPEC §9): the provider's name, whatever `client` says
    const from = isBound(f.fidelity) ? provenance(this.spec.name, this.model) : undefined;
    f.fidelity = f.fidelity ? { ...f.fidelity, ...from, item_id: key } : { item_id: key };
    const input = this.input;
    input.content_items[0] = item;
    input.created_at = this.at;
    this.grammar.push(input, this.emit);
    // (after the push: the call it closed finds its own still known)
    if (parsed !== undefined) this.grammar.know((item as { arguments: string }).arguments, parsed);
  }

  /**
   * The counts the provider reported so far, merged (null before any): those written, then those its
   * reader holds back — each a count to keep (an invalid one `null`, said when it is written: `stop`).
   */
  get reportedUsage(): UsageMetadata | null {
    const written = this.grammar.usageSoFar;
    const held = this.reader.usageSoFar?.() ?? null;
    if (held === null) return written && { ...written };
    const out: UsageMetadata = { ...noUsage(), ...written };
    mergeUsage(out, keptCounts(held));
    return out;
  }

  /** Usage in pieces and / or the finish reason; every count checked here, whichever reader wrote it (one place). */
  stop(usage: Partial<UsageMetadata> | null, finish: FinishReason | null): void {
    this.said = true;
    if (usage) {
      this.gotUsage = true;
      usage = keptCounts(usage, this.invalidCounts);
    }
    if (finish) this.gotFinish = true;
    this.grammar.push(this.event("stop", [], usage as UsageMetadata | null, finish), this.emit);
  }

  /** Counts that are no counts (SPEC §9, §10): null in the stop event, said through `onWarning`. */
  private readonly invalidCounts = (members: string[]): void => {
    const message = `${this.client} sent a usage count that is not a whole number of tokens from 0 to ${MAX_TOKEN_COUNT}: ` +
      `${members.join(", ")} null instead`;
    this.onWarning?.({ type: "invalid", eventIndex: this.framer.index, message });
  };

  warn(message: string): void {
    this.said = true;
    this.onWarning?.({ type: "skipped", eventIndex: this.framer.index, message });
  }

  reason(text: string): void {
    this.said = true;
    this.why = text;
  }

  hold(chars: number, items: number): void {
    this.held.hold(chars, items);
  }

  /**
   * The `created_at` of what the records of the chunk being read make (SPEC §5: an input event's time):
   * the clock read once per chunk, when it arrived — every record it completes was whole by then.
   */
  private at = Date.now();

  /** The one input event a fragment goes in (the assembler keeps no input event: it copies what it keeps). */
  private readonly input: UniEvent = this.event("delta", [], null, null);

  private event(type: "delta" | "stop", items: DeltaItem[], usage: UsageMetadata | null, finish: FinishReason | null): UniEvent {
    return {
      role: "assistant",
      event_type: type,
      content_items: items,
      usage_metadata: usage,
      finish_reason: finish,
      created_at: Date.now(),
    };
  }

  // ---- StreamCore ------------------------------------------------------------------------------

  /** One SSE message's data → the reader, located where the framer is. */
  private readonly record = (data: string): void => {
    const f = this.framer;
    try {
      // each level of nesting takes two characters ("{}", "[]"): a shorter record cannot pass maxDepth, no walk
      const value = data === "[DONE]"
        ? data
        : data.length > 2 * this.maxDepth
        ? parseJsonLineAt(data, this.maxDepth, f.index, f.unterminated)
        : parseJson(data, f.index, f.unterminated);
      if (this.spec.modelOf && isRecord(value)) this.model = modelName(this.spec.modelOf(value)) ?? this.model;
      this.reader.read(value, this);
    } catch (e) {
      throw locate(this.typed(e), this.client, f.position());
    }
    f.keepEnd();
  };

  push(chunk: Uint8Array, emit: Emit): void {
    this.emit = this.live.tap(emit);
    this.timings.arrived();
    this.at = Date.now();
    try {
      // (a chunk that is no bytes has no byteLength: the framer says what it is)
      if ((this.bytesRead += chunk.byteLength || 0) > this.maxResponseBytes) throw this.tooMuch();
      this.framer.push(chunk, this.record);
      // the head, for the diagnosis; the whole body (bounded) while it holds no record
      const room = (this.framer.index === 0 ? BODY_KEPT : HEAD_BYTES) - this.keptBytes;
      if (room > 0) this.keep(chunk.slice(0, room));
    } finally {
      this.timings.update();
    }
  }

  private keep(bytes: Uint8Array): void {
    this.kept.push(bytes);
    this.keptBytes += bytes.length;
  }

  end(emit: Emit): void | Promise<void> {
    this.emit = this.live.tap(emit);
    this.timings.ended();
    this.at = Date.now();
    try {
      this.framer.end(this.record);
      let failure: { error: unknown } | undefined;
      try {
        this.reader.end(this);
      } catch (error) {
        failure = { error };
      }
      // no item went out, and the reader found nothing of its provider's or no end: is it a stream at all?
      if (!this.grammar.started && (failure !== undefined || !this.said)) return this.noStream(failure);
      this.finish(failure);
    } finally {
      this.timings.update();
    }
  }

  /** The body passed `maxResponseBytes`: located at the event being read, at the byte where it passed. */
  private tooMuch(): unknown {
    const e = limitError("maxResponseBytes", this.maxResponseBytes, "the body read from the provider");
    e.eventIndex = this.framer.index;
    e.byteOffset = this.maxResponseBytes;
    return e;
  }

  /**
   * The reader's outcome at the end: its error (not at its provider's end), else a whole answer — what
   * the provider never sent filled in and said (SPEC §9) — through the assembler's end.
   */
  private finish(failure: { error: unknown } | undefined): void {
    try {
      if (failure !== undefined) throw failure.error;
      const missing: string[] = [];
      if (!this.gotUsage) {
        this.stop(NO_USAGE, null);
        missing.push(
          `${this.client} reached its end without reporting usage: four null counts (OpenAI Chat: stream_options.include_usage)`,
        );
      }
      if (!this.gotFinish) {
        this.stop(null, "unknown");
        missing.push(`${this.client} reached its end without a finish reason: finish_reason "unknown"`);
      }
      this.grammar.end(this.emit);
      const eventIndex = endOf(this.framer.kept()).eventIndex;
      for (const message of missing) this.onWarning?.({ type: "missing", eventIndex, message });
    } catch (e) {
      throw locate(this.typed(this.named(e)), this.client, endOf(this.framer.kept()));
    }
  }

  /** A body that made no item: what it was, if no stream of this provider (no-stream.ts, loaded only now); else the reader's outcome. */
  private async noStream(failure: { error: unknown } | undefined): Promise<void> {
    const { noStreamError } = await import("./no-stream.js");
    const body = joinBytes(this.kept, this.keptBytes);
    const error = noStreamError(body, this.bytesRead, this.framer.index, this.context, this.spec, this.client);
    if (error) throw error;
    try {
      this.finish(failure);
    } finally {
      this.timings.update();
    }
  }

  /**
   * An error the package raises about the stream is a `StreamProtocolError` blaming the provider: a
   * plain `MmspError` (the assembler's end errors, SPEC §5's words for assemble mode fed directly; a
   * reader of a `ProviderSpec` of one's own) becomes its rule's fault, located and named.
   */
  private typed(e: unknown): unknown {
    if (!(e instanceof MmspError) || e.name !== "MmspError") return e;
    return new Fault(e.rule ?? "STOP-SHAPE", e.message.replace(/^Streaming response/, "the stream"));
  }

  /** An answer with no content, when the provider said why: the error names the reason (SPEC §9). */
  private named(e: unknown): unknown {
    if (!(e instanceof EmptyResponseError) || this.why === undefined) return e;
    const { client, finishReason, usageMetadata } = e;
    const message = `${client} returned no content (${this.why}; finish_reason=${JSON.stringify(finishReason)}).`;
    return new EmptyResponseError({ client, finishReason, usageMetadata, message });
  }
}
