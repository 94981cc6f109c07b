/**
 * The reading core of every provider: bytes → the package's SSE framer (strict UTF-8) → each record's
 * `data` parsed (`[DONE]` passed as the string) → the provider's `EventReader` → fragments (SPEC §5)
 * → the assembler (assemble mode), which makes the public stream, every `.done` and the stop event.
 * A record's failure is located where the framer is, the end's after the last record (fault.ts), so
 * a provider file never restates a rule of the stream.
 */
import { MessageAssembler } from "../assemble/assembler.js";
import type { Grammar } from "../assemble/grammar.js";
import { LiveMessage } from "../assemble/live-message.js";
import { parseJsonLineAt } from "../decode/record.js";
import { EmptyResponseError } from "../errors.js";
import { createFramer, type Framer } from "../framing/framer.js";
import type { StreamCore } from "../internal/core.js";
import { locate } from "../internal/fault.js";
import { isRecord } from "../internal/values.js";
import { HeldBudget, limitError, type LimitOptions, resolveLimits } from "../internal/limits.js";
import type { ReaderParts } from "../internal/reader-stream.js";
import { endOf } from "../read/position.js";
import { ReadTimings } from "../read/timings.js";
import type { DeltaItem, FinishReason, UniEvent, UniMessage, UsageMetadata } from "../schema.js";
import type { EventReader, FragmentSink } from "./event-reader.js";
import { isBound, modelName, provenance } from "./provenance.js";
import type { ProviderSpec } from "./spec.js";

/** Something of a provider's answer the reader skipped (it has no UniEvent kind), said through `onWarning`. */
export interface ProviderWarning {
  /** What it was: a part of the answer skipped. */
  type: "skipped";
  /** 0-based index of the provider's event (SSE message) that carried it. */
  eventIndex: number;
  /** A sentence saying what was skipped. */
  message: string;
}

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

/** @internal The fused provider reader: framer → JSON → the provider's reader → the assembler. */
export class ProviderCore implements StreamCore<Uint8Array, UniEvent>, ReaderParts, FragmentSink {
  private readonly framer: Framer;
  private readonly reader: EventReader;
  private readonly grammar: Grammar;
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
  /** The provider's name and what names the model in its records, for the provenance of bound fidelity (provenance.ts). */
  private readonly spec: ProviderSpec;
  /** The model the stream named last, once it did. */
  private model: string | undefined;

  constructor(spec: ProviderSpec, options: ProviderCoreOptions) {
    const client = (this.client = options.client ?? spec.name);
    this.spec = spec;
    const limits = resolveLimits(options);
    this.maxDepth = limits.maxDepth;
    this.held = new HeldBudget(limits);
    this.maxResponseBytes = options.maxResponseBytes ?? Infinity;
    this.onWarning = options.onWarning;
    // assemble mode's grammar itself, not createGrammar("assemble"), whose other branch would bring the validator into the bundle
    this.grammar = new MessageAssembler(client, limits);
    this.timings = new ReadTimings(this.grammar);
    this.live = new LiveMessage(null, this.timings);
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
  }

  message(): UniMessage | undefined {
    return this.grammar.message;
  }

  // ---- FragmentSink: what the provider's reader writes -------------------------------------------

  item(item: DeltaItem, key: string): void {
    // the reader hands the fragment over (each is made for this call): its fidelity gains the key in place
    const f = item as { fidelity?: Record<string, unknown> | null };
    // data only its maker can verify says who made it (SPEC §9): the provider's name, whatever `client` says
    const from = isBound(f.fidelity) ? provenance(this.spec.name, this.model) : undefined;
    f.fidelity = f.fidelity ? { ...f.fidelity, ...from, item_id: key } : { item_id: key };
    const input = this.input;
    input.content_items[0] = item;
    input.created_at = Date.now();
    this.grammar.push(input, this.emit);
  }

  stop(usage: Partial<UsageMetadata> | null, finish: FinishReason | null): void {
    this.grammar.push(this.event("stop", [], usage as UsageMetadata | null, finish), this.emit);
  }

  warn(message: string): void {
    this.onWarning?.({ type: "skipped", eventIndex: this.framer.index, message });
  }

  reason(text: string): void {
    this.why = text;
  }

  hold(chars: number, items: number): void {
    this.held.hold(chars, items);
  }

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
      const value = data === "[DONE]" ? data : parseJsonLineAt(data, this.maxDepth, f.index, f.unterminated);
      if (this.spec.modelOf && isRecord(value)) this.model = modelName(this.spec.modelOf(value)) ?? this.model;
      this.reader.read(value, this);
    } catch (e) {
      throw locate(e, this.client, f.position());
    }
    f.keepEnd();
  };

  push(chunk: Uint8Array, emit: Emit): void {
    this.emit = this.live.tap(emit);
    this.timings.arrived();
    try {
      // (a chunk that is no bytes has no byteLength: the framer says what it is)
      if ((this.bytesRead += chunk.byteLength || 0) > this.maxResponseBytes) throw this.tooMuch();
      this.framer.push(chunk, this.record);
    } finally {
      this.timings.update();
    }
  }

  end(emit: Emit): void {
    this.emit = this.live.tap(emit);
    this.timings.ended();
    try {
      this.framer.end(this.record);
      try {
        this.reader.end(this);
        this.grammar.end(this.emit);
      } catch (e) {
        throw locate(this.named(e), this.client, endOf(this.framer.kept()));
      }
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

  /** An answer with no content, when the provider said why: the error names the reason (SPEC §9). */
  private named(e: unknown): unknown {
    if (!(e instanceof EmptyResponseError) || this.why === undefined) return e;
    const { client, finishReason, usageMetadata } = e;
    const message = `${client} returned no content (${this.why}; finish_reason=${JSON.stringify(finishReason)}).`;
    return new EmptyResponseError({ client, finishReason, usageMetadata, message });
  }
}
