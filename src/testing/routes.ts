/**
 * Where each provider takes a streamed request and how it says no: its route, the header its key
 * travels in, and its error bodies (before a stream, and as an event inside one). One table, for the
 * fake providers here and for any provider code that needs the same facts; nothing else lives here.
 */

/** The providers whose streams the package knows. */
export const PROVIDERS = ["openai-chat", "openai-responses", "anthropic", "gemini"] as const;
/** One of `PROVIDERS`. */
export type ProviderName = typeof PROVIDERS[number];

/** What went wrong, in the words every provider has one of. */
export type ProblemKind = "auth" | "not-found" | "invalid" | "overloaded" | "server";

/** One provider's route and error shapes. */
export interface ProviderRoute {
  /** The method of a streamed request. */
  readonly method: "POST";
  /** Its path; for Gemini the path names the model (`:model`). */
  readonly path: string;
  /** The model a request asks for: from its URL or its JSON body. */
  readonly model: (url: URL, body: Record<string, unknown>) => string | undefined;
  /** The key a request carries, or null. */
  readonly key: (request: Request, url: URL) => string | null;
  /** The header the key travels in (a log shows it redacted). */
  readonly keyHeader: string;
  /** The body and status of a refusal. */
  readonly refusal: (kind: ProblemKind, message: string) => { status: number; body: unknown };
  /** An error inside a stream that already began (SSE text, the stream's end included). */
  readonly errorEvent: (kind: ProblemKind, message: string) => string;
  /**
   * The header a browser's request must carry set to `true` for the provider to answer it with CORS
   * headers (Anthropic's opt-in to direct browser access); none: any origin is answered.
   */
  readonly browserOptIn?: string;
}

const STATUS: Record<ProblemKind, number> = { auth: 401, "not-found": 404, invalid: 400, overloaded: 529, server: 500 };
const bearer = (request: Request): string | null => /^Bearer (.+)$/i.exec(request.headers.get("authorization") ?? "")?.[1] ?? null;
const bodyModel = (
  _url: URL,
  body: Record<string, unknown>,
): string | undefined => (typeof body.model === "string" ? body.model : undefined);
const data = (json: unknown): string => `data: ${JSON.stringify(json)}\n\n`;

const OPENAI_TYPES: Record<ProblemKind, [type: string, code: string | null]> = {
  auth: ["invalid_request_error", "invalid_api_key"],
  "not-found": ["invalid_request_error", "model_not_found"],
  invalid: ["invalid_request_error", null],
  overloaded: ["server_error", "server_overloaded"],
  server: ["server_error", null],
};
const openaiError = (kind: ProblemKind, message: string) => ({ message, type: OPENAI_TYPES[kind][0], code: OPENAI_TYPES[kind][1] });
const ANTHROPIC_TYPES: Record<ProblemKind, string> = {
  auth: "authentication_error",
  "not-found": "not_found_error",
  invalid: "invalid_request_error",
  overloaded: "overloaded_error",
  server: "api_error",
};
const GEMINI_STATUS: Record<ProblemKind, [code: number, status: string]> = {
  auth: [401, "UNAUTHENTICATED"],
  "not-found": [404, "NOT_FOUND"],
  invalid: [400, "INVALID_ARGUMENT"],
  overloaded: [503, "UNAVAILABLE"],
  server: [500, "INTERNAL"],
};

/** Every provider's route and error shapes. */
export const PROVIDER_ROUTES: Readonly<Record<ProviderName, ProviderRoute>> = {
  "openai-chat": {
    method: "POST",
    path: "/v1/chat/completions",
    model: bodyModel,
    key: bearer,
    keyHeader: "authorization",
    refusal: (kind, message) => ({ status: STATUS[kind], body: { error: openaiError(kind, message) } }),
    errorEvent: (kind, message) => data({ error: openaiError(kind, message) }) + "data: [DONE]\n\n",
  },
  "openai-responses": {
    method: "POST",
    path: "/v1/responses",
    model: bodyModel,
    key: bearer,
    keyHeader: "authorization",
    refusal: (kind, message) => ({ status: STATUS[kind], body: { error: openaiError(kind, message) } }),
    errorEvent: (kind, message) => `event: error\n${data({ type: "error", code: OPENAI_TYPES[kind][1], message, param: null })}`,
  },
  anthropic: {
    method: "POST",
    path: "/v1/messages",
    model: bodyModel,
    key: (request) => request.headers.get("x-api-key"),
    keyHeader: "x-api-key",
    refusal: (kind, message) => ({ status: STATUS[kind], body: { type: "error", error: { type: ANTHROPIC_TYPES[kind], message } } }),
    errorEvent: (kind, message) => `event: error\n${data({ type: "error", error: { type: ANTHROPIC_TYPES[kind], message } })}`,
    browserOptIn: "anthropic-dangerous-direct-browser-access",
  },
  gemini: {
    method: "POST",
    path: "/v1beta/models/:model:streamGenerateContent",
    model: (url) => /^\/v1beta\/models\/([^/:]+):streamGenerateContent$/.exec(url.pathname)?.[1],
    key: (request, url) => request.headers.get("x-goog-api-key") ?? url.searchParams.get("key"),
    keyHeader: "x-goog-api-key",
    refusal: (kind, message) => {
      const [code, status] = GEMINI_STATUS[kind];
      return { status: code, body: { error: { code, message, status } } };
    },
    errorEvent: (kind, message) => {
      const [code, status] = GEMINI_STATUS[kind];
      return data({ error: { code, message, status } });
    },
  },
};

/** Whether `url` is the provider's streamed route (Gemini: any model's, with `alt=sse`). */
export function matchesRoute(route: ProviderRoute, url: URL): boolean {
  if (!route.path.includes(":model")) return url.pathname === route.path;
  return route.model(url, {}) !== undefined && url.searchParams.get("alt") === "sse";
}

const MMSP_TYPES: Record<ProblemKind, string> = {
  auth: "AuthenticationError",
  "not-found": "NotFoundError",
  invalid: "InvalidRequestError",
  overloaded: "OverloadedError",
  server: "InternalServerError",
};

/** MMSP's own shapes (SPEC §1): a refusal `{"error": {type, message}}`; in a stream, that error as one event, then `[DONE]` (SSE). */
export const MMSP_ERRORS = {
  refusal: (kind: ProblemKind, message: string): { status: number; body: unknown } => ({
    status: STATUS[kind],
    body: { error: { type: MMSP_TYPES[kind], message } },
  }),
  errorEvent: (kind: ProblemKind, message: string, format: "sse" | "ndjson" = "sse"): string =>
    mmspErrorEvent({ type: MMSP_TYPES[kind], message, ...(kind === "overloaded" ? { status: 529 } : {}) }, format),
};

/** An MMSP error event: `data: {"error": …}` then `data: [DONE]` (SSE), or one NDJSON line. */
export function mmspErrorEvent(error: { type: string; message: string; status?: number }, format: "sse" | "ndjson"): string {
  return format === "ndjson" ? `${JSON.stringify({ error })}\n` : data({ error }) + "data: [DONE]\n\n";
}

/** The problem kind a refusal status stands for. */
export function problemOf(status: number): ProblemKind {
  return status === 401 || status === 403
    ? "auth"
    : status === 404
    ? "not-found"
    : status === 529 || status === 503 || status === 429
    ? "overloaded"
    : status >= 500
    ? "server"
    : "invalid";
}
