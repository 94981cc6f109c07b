// Routing: SPEC §10 "A row's settings are the operator's" (the models table: a model name's row, its targets and their settings,
// checked at the boundary; asking a target: target.ts).
//
// The relay as an MMSP server (createRelay's `models`): a table from the model names clients send to
// a provider made by mmsp-streams/providers, the provider's own model id and per-model defaults.
//
//   POST /v1/stream {model, messages, config}
//     → the table's own entry (unknown: 404 naming the known ones) → the client's config within the
//     row's (ceilings.ts, SPEC §10: over a ceiling or costlier than allowed, a 400)
//     → provider.request() (the client's request or an UnsupportedParameterError: 400; else the
//       operator's: 502) → provider.stream(request, { signal, the relay's bounds })
//     → a refusal before any event: the relay's refusal (the provider's status, MMSP's type), except
//       what is the operator's (401/403, a redirect, no connection: 502 UpstreamUnavailable, logged)
//     → else the UniEvents written as MMSP SSE: an upstream Response like an MMSP server's
//
// A row may be a list of targets: fallback.ts tries them in order (SPEC §10 "Fallbacks"), each asked
// in target.ts (startTarget); continuation.ts goes on with the next after a failure mid-answer.
//
// `modelsUpstream` is that path as an upstream of the kind createRelay already calls (upstream.ts),
// so the Durable Object path stays as it is: one provider request per stream, resume, DELETE
// aborting it (the signal), every bound. A request for a model the table does not name goes on to
// the relay's `upstream` when it has one. `GET /v1/models` lists the table as MMSP's server does.
import { fail } from "../../internal/describe.js";
import { BOOLEAN, checkOptions, oneOf } from "../../internal/options.js";
import { isRecord } from "../../internal/values.js";
import type { Provider } from "../../providers/provider.js";
import { FOREIGN_THINKING, type ForeignThinking } from "../../providers/history.js";
import type { UniConfig } from "../../providers/request.js";
import type { UniMessage } from "../../schema.js";
import { checkRowSettings, type RelayAllow } from "./ceilings.js";
import { refusal } from "../refusal.js";
import { parseJsonText } from "../../internal/json.js";

/** One row of the models table: who answers a model name, as which of its models, with which defaults. */
export interface RelayModel {
  /**
   * The target's name in `x-mmsp-target` and the relay's log (`"claude-eu"`): 1 to 100 letters,
   * digits and `_ . : -`; default its index in the row (`"0"`, `"1"`…).
   */
  name?: string;
  /** The provider (`anthropic({ apiKey: env.ANTHROPIC_API_KEY })`, `openaiChat(…)`…). */
  provider: Provider;
  /** The provider's own model id (`"claude-haiku-4-5"`): what the provider is asked for. */
  model: string;
  /**
   * The operator's settings (SPEC §10, ceilings.ts): a client's `config` may lower a number here,
   * never raise it, and may not ask for what costs more than the row (`fast_mode`, a higher
   * `thinking_level`…) unless `allow` names it; its `tools` are added to the client's own (a name in
   * both: a 400); other keys are defaults.
   */
  config?: UniConfig;
  /** The costlier settings a client may ask for past `config` (`{ fast_mode: true, thinking_level: true }`); none by default. */
  allow?: RelayAllow;
  /**
   * Another provider's thinking in the chat's history (a chat whose row changed provider): left out
   * (`"drop"`) or sent as plain text (`"text"`); default the provider factory's (SPEC §9).
   */
  foreignThinking?: ForeignThinking;
  /**
   * When this target fails after its first event (a cut, an overloaded or server error, a stall)
   * while the answer so far is text only, the next target of the row that can continue an assistant
   * prefix goes on with it in the same text (continuation.ts, SPEC §10); default false: the stream
   * ends with the error.
   */
  continueOnFailure?: boolean;
  /**
   * A client's hosted tools (Open Responses' `web_search`, `file_search`, `mcp`, a `namespace`…: what
   * runs on OpenAI's side, with fees outside token quotas): refused naming the tool (`"refuse"`, the
   * default), or left out of the request with a warning (`"drop"`: the answer's `x-mmsp-warning`
   * names them). A row of several targets drops them only when every target says `"drop"`.
   */
  hostedTools?: HostedTools;
}

/** What a row does with a client's hosted tools (see RelayModel's `hostedTools`). */
export type HostedTools = "refuse" | "drop";

/** Whether `row` drops a client's hosted tools (every target says `"drop"`). */
export const dropsHostedTools = (row: RelayRow | undefined): boolean =>
  row !== undefined && targetsOf(row).every((t) => t.hostedTools === "drop");

/** A row of the table: one target, or a list of targets tried in order (fallback.ts, SPEC §10 "Fallbacks"). */
export type RelayRow = RelayModel | readonly RelayModel[];

/** The models table: client-facing model names (in the order `GET /v1/models` lists them) → their rows. */
export type RelayModels = Readonly<Record<string, RelayRow>>;

/** The targets of a row, in the order they are tried. */
export const targetsOf = (row: RelayRow): readonly RelayModel[] => (Array.isArray(row) ? row : [row as RelayModel]);

/** createRelay's `models`: a table, or a function of the Worker's `env` that makes one (keys live there). */
export type RelayModelsOption<E> = RelayModels | ((env: E) => RelayModels);

/** (the headers that name who served an answer: the stream's, stream/headers.ts) */
export { PROVIDER_HEADER, TARGET_HEADER } from "../stream/headers.js";
/** What a target's `name` may be (it goes into a header and the log as it is). */
const TARGET_NAME = /^[\w.:-]{1,100}$/;
const HOSTED_TOOLS = /*#__PURE__*/ oneOf(["refuse", "drop"]);

/** The name of the target at `index` of `row`: its `name`, else its index. */
export const targetName = (row: RelayRow, index: number): string => targetsOf(row)[index]?.name ?? String(index);

/** A table checked at the boundary: each row a provider, a model id, a config object (a `TypeError` naming the row otherwise). */
export function checkModels(table: unknown, where = "createRelay: `models`"): RelayModels {
  if (!isRecord(table)) fail(TypeError, where, "an object of model names to { provider, model, config? }", table);
  for (const [name, value] of Object.entries(table as Record<string, unknown>)) {
    if (name === "") throw new TypeError(`${where}: a model name must not be empty`);
    const list = Array.isArray(value);
    if (list && value.length === 0) throw new TypeError(`${where}[${JSON.stringify(name)}]: a list of targets must not be empty`);
    for (const [i, one] of (list ? value : [value]).entries()) checkTarget(one, `${where}[${JSON.stringify(name)}]${list ? `[${i}]` : ""}`);
  }
  return table as RelayModels;
}

/** One target of a row, checked (a `TypeError` naming it otherwise). */
function checkTarget(value: unknown, at: string): void {
  const row = value as Record<string, unknown>;
  if (!isRecord(row)) fail(TypeError, at, "an object { provider, model, config? }", row);
  const provider = row.provider as Partial<Provider> | undefined;
  if (!isRecord(provider) || typeof provider.request !== "function" || typeof provider.stream !== "function") {
    fail(TypeError, `${at}.provider`, "a provider made by mmsp-streams/providers (anthropic(), openaiChat()…)", provider);
  }
  if (typeof row.model !== "string" || row.model === "") {
    fail(TypeError, `${at}.model`, "the provider's model id, a non-empty string", row.model);
  }
  if (row.name !== undefined && (typeof row.name !== "string" || !TARGET_NAME.test(row.name))) {
    fail(TypeError, `${at}.name`, "1 to 100 letters, digits, _ . : or - (or left out: its index names it)", row.name);
  }
  if (row.config !== undefined && !isRecord(row.config)) {
    fail(TypeError, `${at}.config`, "an object of MMSP config defaults (or left out)", row.config);
  }
  checkRowSettings(row.config as UniConfig | undefined, row.allow, at);
  checkOptions(at, { foreignThinking: row.foreignThinking, continueOnFailure: row.continueOnFailure, hostedTools: row.hostedTools }, {
    foreignThinking: FOREIGN_THINKING,
    continueOnFailure: BOOLEAN,
    hostedTools: HOSTED_TOOLS,
  }, at);
}

/**
 * The table in effect for `env`: the option itself, or what its function makes of `env` — made and
 * checked once per `env` object (a Worker's env lives as long as its isolate), not per request.
 */
export function modelTable<E>(option: RelayModelsOption<E>): (env: E) => RelayModels {
  if (typeof option !== "function") {
    const table = checkModels(option);
    return () => table;
  }
  const made = new WeakMap<object, RelayModels>();
  return (env: E) => {
    const key = (env ?? made) as object;
    let table = made.get(key);
    if (table === undefined) made.set(key, table = checkModels(option(env), "createRelay: what `models(env)` returned"));
    return table;
  };
}

/**
 * The row of model `name`: the table's own enumerable entry (what checkModels checked and `GET
 * /v1/models` lists), never a member of Object.prototype (`constructor`, `__proto__`, `toString`).
 */
export function rowOf(table: RelayModels, name: string): RelayRow | undefined {
  return Object.prototype.propertyIsEnumerable.call(table, name) ? table[name] : undefined;
}

/** `GET /v1/models` (SPEC §1): the table's names in order, `created` the relay's start (Unix seconds). */
export function modelsList(table: RelayModels, created: number): Response {
  const data = Object.keys(table).map((id) => ({ id, object: "model", created, owned_by: "mmsp" }));
  return Response.json({ object: "list", data });
}

/** The 404 of a model the table does not name (SPEC §1's words, then the names it serves). */
export function unknownModel(model: string, table: RelayModels): Response {
  const known = Object.keys(table).map((name) => JSON.stringify(name)).join(", ") || "none";
  return refusal(
    404,
    "NotFoundError",
    `The model '${model.slice(0, 200)}' does not exist; GET /v1/models lists the models this server serves (${known}).`,
  );
}

/** An MMSP request body as the relay reads it: its model name, messages and config. */
export interface MmspBody {
  model: string;
  messages: UniMessage[];
  config: UniConfig;
}

/** The body parsed, or undefined when it is no JSON (the caller says what that means). */
function parsed(bytes: Uint8Array): unknown {
  try {
    return parseJsonText(new TextDecoder().decode(bytes));
  } catch {
    return undefined;
  }
}

/** The `model` a body names, when it is a JSON object with a string `model` (what the table is asked about). */
export function modelOf(bytes: Uint8Array): string | undefined {
  const body = parsed(bytes);
  return isRecord(body) && typeof body.model === "string" ? body.model : undefined;
}

/** The body checked as MMSP's server checks it (SPEC §1: each refusal a 400 with its words), or that refusal. */
export function mmspBody(bytes: Uint8Array): MmspBody | Response {
  const body = parsed(bytes);
  const bad = (message: string): Response => refusal(400, "InvalidRequestError", message);
  if (!isRecord(body)) return bad("Request body must be a JSON object.");
  if (typeof body.model !== "string" || body.model === "") return bad("model must be a non-empty string.");
  if (!Array.isArray(body.messages)) return bad("messages must be a list of messages.");
  if (body.config !== undefined && body.config !== null && !isRecord(body.config)) return bad("config must be an object.");
  return { model: body.model, messages: body.messages as UniMessage[], config: (body.config ?? {}) as UniConfig };
}
