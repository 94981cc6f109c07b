/**
 * UniEvents → the same UniEvents, checked against the grammar of SPEC §3, with each `.done` built
 * from its fragments and compared (SPEC §4), and the finished message as a promise. In assemble
 * mode (SPEC §5), bare fragments in → the public stream out (see `assembler.ts`).
 */
import type { StreamCore } from "../internal/core.js";
import { CoreStream, type CoreStreamOptions } from "../internal/core-stream.js";
import { checkItemDepth, resolveLimits, type LimitOptions } from "../internal/limits.js";
import { locate } from "../internal/fault.js";
import { MessagePromise } from "../internal/message-promise.js";
import { previewValue } from "../internal/values.js";
import { checkEvent } from "../decode/validate.js";
import type { UniEvent, UniMessage } from "../schema.js";
import { MessageAssembler } from "./assembler.js";
import { MessageValidator } from "./validator.js";
import { LiveMessage, type MessageSnapshot } from "./live-message.js";

export interface MessageAssemblerOptions extends CoreStreamOptions, Pick<LimitOptions, "maxItems" | "maxDepth"> {
  /** Names the reader in error messages; default `"mmsp-streams"`. */
  client?: string;
  /**
   * `"validate"` (default): the input is a public stream, checked (SPEC §3, §4).
   * `"assemble"`: the input is bare fragments (several per event, `fidelity.item_id`, stop events
   * in pieces), and the output is the public stream built from them (SPEC §5).
   */
  mode?: "validate" | "assemble";
}

/** The checking stage as a synchronous core. */
export class MessageValidatorCore implements StreamCore<UniEvent, UniEvent> {
  readonly validator: MessageValidator;
  private readonly client: string;
  private readonly maxDepth: number;
  private index = 0;
  readonly finished = false;

  constructor(options: MessageAssemblerOptions, onMessage: (m: UniMessage) => void) {
    this.client = options.client ?? "mmsp-streams";
    const limits = resolveLimits(options);
    this.maxDepth = limits.maxDepth;
    this.validator = new MessageValidator(this.client, onMessage, limits);
  }

  readonly live = new LiveMessage(() => this.validator);

  push(event: UniEvent, emit: (event: UniEvent) => void): void {
    emit = this.live.tap(emit);
    const index = this.index++;
    try {
      const checked = checkEvent(event, false);
      for (const item of checked.content_items as Record<string, unknown>[]) checkItemDepth(item, this.maxDepth);
      this.validator.push(checked);
      emit(checked);
    } catch (e) {
      throw locate(e, this.client, { eventIndex: index, preview: previewValue(event) });
    }
  }

  end(): void {
    try {
      this.validator.end();
    } catch (e) {
      throw locate(e, this.client, { eventIndex: this.index, preview: this.index === 0 ? "<empty input>" : "<end of input>" });
    }
  }
}

/** Assemble mode as a synchronous core: input events (bare fragments) in, the public stream out. */
export class MessageAssemblerCore implements StreamCore<UniEvent, UniEvent> {
  readonly assembler: MessageAssembler;
  private readonly client: string;
  private index = 0;
  readonly finished = false;

  constructor(options: MessageAssemblerOptions, onMessage: (m: UniMessage) => void) {
    this.client = options.client ?? "mmsp-streams";
    this.assembler = new MessageAssembler(this.client, onMessage, resolveLimits(options));
  }

  readonly live = new LiveMessage();

  push(event: UniEvent, emit: (event: UniEvent) => void): void {
    emit = this.live.tap(emit);
    const index = this.index++;
    try {
      this.assembler.push(checkEvent(event, false, "assemble"), emit);
    } catch (e) {
      throw locate(e, this.client, { eventIndex: index, preview: previewValue(event) });
    }
  }

  end(emit: (event: UniEvent) => void): void {
    emit = this.live.tap(emit);
    try {
      this.assembler.end(emit);
    } catch (e) {
      throw locate(e, this.client, { eventIndex: this.index, preview: this.index === 0 ? "<empty input>" : "<end of input>" });
    }
  }
}

/**
 * Checks a stream of UniEvents (from `UniEventDecoderStream` or your own source) and assembles the
 * message: every rule of SPEC §3, every `.done` compared with what its fragments build.
 *
 * With `{ mode: "assemble" }` it is the producer side instead (SPEC §5): it takes the events a
 * provider adapter makes from raw fragments and emits the public stream, each item closed by its
 * `.done` and one stop event with the merged usage; `message` is the assembled message.
 *
 * @example
 * ```ts
 * const assembler = new MessageAssemblerStream();
 * const checked = events.pipeThrough(assembler);
 * const message = await assembler.message; // drains `checked` if nobody reads it
 * ```
 */
export class MessageAssemblerStream extends CoreStream<UniEvent, UniEvent> {
  /** The finished message; see `UniEventStream.message`. */
  readonly message: Promise<UniMessage>;

  constructor(options: MessageAssemblerOptions = {}) {
    let stream!: MessageAssemblerStream;
    const message = new MessagePromise<UniMessage>(() => stream.drain());
    const onMessage = (m: UniMessage): void => message.resolve(m);
    const core =
      options.mode === "assemble" ? new MessageAssemblerCore(options, onMessage) : new MessageValidatorCore(options, onMessage);
    super(core, { signal: options.signal, idleTimeoutMs: options.idleTimeoutMs, onError: (e) => message.reject(e) });
    stream = this;
    this.message = message;
    this.live = core.live;
  }

  private readonly live: LiveMessage;

  /** The message so far, live and cheap to call after every event; see `UniEventStream.snapshot`. */
  snapshot(): MessageSnapshot {
    return this.live.snapshot();
  }
}
