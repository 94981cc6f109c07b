// SPEC §10 "Doors: the APIs a client speaks": what a door is to the relay's route table, and what it
// declares of the rest. A door answers the requests of its routes (null for any other path) and names
// them, for the 404 that lists every route. Besides, it declares what the other rooms compose, so no
// door re-does their work:
//   - the request headers its clients send a key in (`x-api-key`, `x-goog-api-key`): admission reads
//     the relay's key from the relay's own headers and every door's (admission/bind.ts), one reading;
//   - the headers a browser client of its API sends and reads (admission/cors.ts composes them, a
//     prefix reflecting the requested headers it covers: CORS allows no wildcard with credentials);
//   - its error shape: the relay's refusals (MMSP `{"error": {type, message}}`, a status, Retry-After,
//     X-Should-Retry) written as its API's errors, applied by the route table to every non-2xx answer
//     of its routes and to a throw on them (an answer the door made in its shape is marked so);
//   - whether its API has a cancel of its own (without one, a stream is kept only when asked: stream/streams.ts);
//   - its encodings (stream/encoding.ts): how its answers are written from the stream's events, where they are.
// Adding a door is a folder of doors/ and one line of create-relay.ts's table.
import { isRecord } from "../../internal/values.js";
import type { KeyHeaderName } from "../admission/bind.js";
import type { CorsDeclaration } from "../admission/cors.js";
import type { DoorEncoding } from "../stream/encoding.js";

/** A request header a door's clients send a key in: its lowercase name (`"x-api-key"`), and `scheme: "Bearer"` when the key is `Bearer <key>`'s token. */
export type KeyHeader = KeyHeaderName;

/** The headers a browser client of a door's API sends (`allow`, `allowPrefixes`: `"x-stainless-"`) and reads (`expose`): admission/cors.ts composes every door's. */
export type DoorCors = CorsDeclaration;

/** A refusal of the relay as a door's error shape is given it: MMSP's error, its status and headers. */
export interface RelayRefusal {
  /** The HTTP status (4xx, 5xx). */
  readonly status: number;
  /** The MMSP error type (`"RateLimitError"`; `"HTTPError"` for an answer without one). */
  readonly type: string;
  /** What to do, in words. */
  readonly message: string;
  /** The request member at fault (an `UnsupportedParameterError`'s `parameter`), or null. */
  readonly parameter: string | null;
  /** The refusal's headers (Retry-After, X-Should-Retry, WWW-Authenticate, Allow…), without its content headers. */
  readonly headers: Headers;
}

/** A door's error shape: the relay's refusal as its API's error answer (status and headers kept). */
export type ErrorShape = (refusal: RelayRefusal) => Response;

/** What a door declares of the rest besides its routes (see the top). */
export interface DoorDeclaration {
  /** The headers its clients send a key in, besides the relay's own (`x-relay-key`, `Authorization: Bearer`). */
  readonly keyHeaders?: readonly KeyHeader[];
  /** The headers its browser clients send and read, besides the relay's own (admission/cors.ts). */
  readonly cors?: DoorCors;
  /** Its API's error shape; none: the relay's refusals go out as they are (MMSP's shape). */
  readonly errorShape?: ErrorShape;
  /** Whether its API has a cancel of its own (a route that stops a response): its streams are kept by default. */
  readonly cancel?: boolean;
  /** Its encodings by name (stream/encoding.ts): the stream's object writes a kept stream's answers in them. */
  readonly encodings?: Readonly<Record<string, DoorEncoding>>;
}

/** One door of the relay (or a route of the relay's own): its routes, its answer, and what it declares. */
export interface Door<E> extends DoorDeclaration {
  /** Its routes as the 404 of an unknown path names them (`"POST /v1/stream"`). */
  readonly routes: readonly string[];
  /** The answer to a request of one of its routes; null for any other path. */
  answer(request: Request, env: E, url: URL): Promise<Response | null>;
}

const SHAPED = new WeakSet<Response>();

/** `answer`, marked as already in its door's error shape: the route table passes it on as it is. */
export function inDoorShape(answer: Response): Response {
  SHAPED.add(answer);
  return answer;
}

/** A non-2xx answer read as the relay's refusal: an MMSP `{"error": {type, message, parameter?}}` body, else `HTTPError`. */
export async function refusalOf(answer: Response): Promise<RelayRefusal> {
  let body: unknown;
  try {
    body = await answer.json();
  } catch {
    body = undefined;
  }
  const e = isRecord(body) && isRecord(body.error) ? body.error : {};
  const headers = new Headers(answer.headers);
  headers.delete("content-length");
  headers.delete("content-type");
  return {
    status: answer.status,
    type: typeof e.type === "string" ? e.type : "HTTPError",
    message: typeof e.message === "string" ? e.message : `HTTP ${answer.status}`,
    parameter: typeof e.parameter === "string" ? e.parameter : null,
    headers,
  };
}

/** A door's answer as it leaves: a non-2xx one not already in the door's shape written in it; any other as it is. */
export async function shapedAnswer(answer: Response, shape: ErrorShape | undefined): Promise<Response> {
  if (shape === undefined || answer.ok || SHAPED.has(answer)) return answer;
  return shape(await refusalOf(answer));
}

/** Every door's encodings by name, for the stream's object (a name given twice is the operator's mistake: a TypeError). */
export function encodingsOf(doors: readonly DoorDeclaration[]): Record<string, DoorEncoding> {
  const out: Record<string, DoorEncoding> = Object.create(null);
  for (const door of doors) {
    for (const [name, encoding] of Object.entries(door.encodings ?? {})) {
      if (name in out && out[name] !== encoding) throw new TypeError(`createRelay: two doors name the encoding ${JSON.stringify(name)}.`);
      out[name] = encoding;
    }
  }
  return out;
}
