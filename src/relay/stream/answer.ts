// The stream: SPEC §10 "Fallbacks" (an answer of the models table, read as events or as MMSP bytes: what
// routing hands the stream step, routing/fallback.ts making it, the stream reading it).
/**
 * An answer of the `models` table (fallback.ts serves it) as an upstream `Response` like an MMSP
 * server's: MMSP SSE, `x-mmsp-client` and `x-mmsp-provider` naming the provider that served it, an
 * error after the first event one `{"error"}` event then `[DONE]` (the encoder's abort).
 *
 * The relay reads its own answers in the same isolate (the stream's object, the stateless pipe), so
 * two side channels go with each, kept beside the Response, never in it:
 * - its events themselves (`takeEvents`): a reader that takes them skips writing each event as SSE
 *   and reading it back (what the stream's object spent most of its CPU on per event, issue #39); the
 *   SSE body is made only when it is read, so one of the two ever runs. `checked`: they are a
 *   provider reader's own, checked by construction; else (a continuation joined two targets' events)
 *   the reader checks them as it would the body's;
 * - what the provider serving it reported of its usage so far (`reportedUsageOf`), for the
 *   settlement of a stream that ends before its stop (stream-cost.ts).
 */
import { through } from "../through.js";
import { SseEncoderStream } from "../../encode.js";
import { fromResponse, MessageAssemblerStream } from "../../index.js";
import type { UniEvent, UsageMetadata } from "../../schema.js";
import { PROVIDER_HEADER, streamHeaders } from "./headers.js";
import { flattened, passing } from "../reads.js";
import type { PassedBytes } from "../routing/pass-through.js";

/** An answer's events (one array per provider chunk), taken: whether they are a provider reader's own (checked by construction). */
export interface TakenEvents {
  events: ReadableStream<UniEvent[]>;
  checked: boolean;
}

interface AnswerParts {
  /** The events, unless the SSE body was read first (then null); once taken, the body is never made. */
  take(): TakenEvents | null;
  reported?: () => UsageMetadata | null;
  /** The provider's own bytes of a passed-through request (routing/pass-through.ts). */
  bytes?: PassedBytes;
}

const PARTS = new WeakMap<Response, AnswerParts>();

/** (the headers of a streamed answer: headers.ts) */
export { streamHeaders };

/** `events` as the answer of `provider` (see the top); `reported`: what the serving provider reported so far. */
export function sseAnswer(
  events: ReadableStream<UniEvent[]>,
  provider: string,
  { reported, checked = false, bytes }: {
    reported?: () => UsageMetadata | null;
    checked?: boolean;
    bytes?: PassedBytes | undefined;
  } = {},
): Response {
  const headers = {
    ...streamHeaders("text/event-stream; charset=utf-8"),
    "x-mmsp-client": provider,
    [PROVIDER_HEADER]: provider,
  };
  let encoded: ReadableStreamDefaultReader<Uint8Array> | undefined;
  let taken = false;
  const body = new ReadableStream<Uint8Array>({
    async pull(controller) {
      if (taken) return controller.error(new TypeError("relay: this answer's events were taken (takeEvents): its body is not made"));
      encoded ??= through(flattened(events), new SseEncoderStream()).getReader();
      const r = await encoded.read();
      if (r.done) controller.close();
      else controller.enqueue(r.value);
    },
    // (the events taken: their reader cancels them, not this body)
    cancel: (reason) => (taken ? undefined : encoded ? encoded.cancel(reason) : events.cancel(reason)),
  }, { highWaterMark: 0 });
  const answer = new Response(body, { status: 200, headers });
  PARTS.set(answer, {
    take: () => {
      if (encoded !== undefined || taken) return null;
      taken = true;
      return { events, checked };
    },
    reported,
    ...(bytes ? { bytes } : {}),
  });
  return answer;
}

/** The provider's own bytes of an answer of sseAnswer that passed the client's request through, if any (read beside its events). */
export const passedBytesOf = (answer: Response): PassedBytes | undefined => PARTS.get(answer)?.bytes;

/** The events of an answer of sseAnswer, taken instead of its body; null for any other Response or a body already read. */
export const takeEvents = (answer: Response): TakenEvents | null => PARTS.get(answer)?.take() ?? null;

/**
 * An upstream answer's checked events, as the relay reads every answer (the stream's object, the
 * stateless pipe), one array per provider chunk: an answer of sseAnswer's events themselves, through
 * the grammar check unless a provider reader made them all; any other answer's body read by
 * `fromResponse` (framing, decoding, the checks, `maxEventBytes`).
 */
export function checkedBatches(
  upstream: Response,
  options: { client: string; signal?: AbortSignal; maxEventBytes?: number },
): ReadableStream<UniEvent[]> {
  const direct = takeEvents(upstream);
  if (direct === null) return onePerBatch(fromResponse(upstream, options).readable);
  if (direct.checked) return direct.events;
  const { client, signal } = options;
  return onePerBatch(through(flattened(direct.events), new MessageAssemblerStream(signal ? { client, signal } : { client })));
}

/** Events as batches of one, their reads taken directly by the relay's readers (reads.ts): no stream hop more per event. */
function onePerBatch(events: ReadableStream<UniEvent>): ReadableStream<UniEvent[]> {
  const reader = events.getReader();
  return passing<UniEvent[]>(async () => {
    const r = await reader.read();
    return r.done ? { done: true, value: undefined } : { done: false, value: [r.value] };
  }, (reason) => reader.cancel(reason));
}

/** The same checked events one per read (the MMSP door's relay of an upstream: doors/mmsp/http.ts; the stream's object reads `checkedBatches`). */
export function checkedEvents(
  upstream: Response,
  options: { client: string; signal?: AbortSignal; maxEventBytes?: number },
): ReadableStream<UniEvent> {
  const direct = takeEvents(upstream);
  if (direct === null) return fromResponse(upstream, options).readable;
  const events = flattened(direct.events);
  if (direct.checked) return events;
  const { client, signal } = options;
  return through(events, new MessageAssemblerStream(signal ? { client, signal } : { client }));
}

/**
 * What the provider that serves `answer` (a Response of sseAnswer) reported of its usage so far: its
 * events' `reportedUsage`. Undefined for an answer no provider of the table serves (an upstream MMSP server's).
 */
export const reportedUsageOf = (answer: Response): (() => UsageMetadata | null) | undefined => PARTS.get(answer)?.reported;
