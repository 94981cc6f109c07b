// The useChat door's request: SPEC §10 "Doors: the APIs a client speaks" (the AI SDK's chat request
// mapped onto the relay's one request, MMSP's).
//
//   request   the AI SDK's default chat request (DefaultChatTransport, MmspChatTransport): { id,
//             messages: UIMessage[], trigger, messageId?, …the transport's `body` }, of which the
//             relay reads `id` (the chat's), `messages`, and the package's `model` and `config`
//             (MMSP's request fields); the rest (trigger, messageId, members of one's own) is ignored
//   → MMSP    { model, messages: toMmspMessages(messages), config }: then admitted, routed and
//             streamed like any MMSP request (the same rows, principals, quotas, fallbacks)
//
// A refusal here is the relay's 400 (InvalidRequestError) naming the member, as POST /v1/stream's.
import { toWireEvent } from "../../../index.js";
import { toMmspMessages } from "../../../ai-sdk/to-mmsp-messages.js";
import { UIMessageConversionError } from "../../../ai-sdk/conversion-error.js";
import type { UIMessage } from "../../../ai-sdk/types.js";
import { isRecord } from "../../../internal/values.js";
import { refusal } from "../../refusal.js";

/** The longest chat id kept (the AI SDK's are 16 characters). */
export const MAX_CHAT_ID = 256;

/** What the door reads of a chat request, and the MMSP request it asks for. */
export interface ChatAsk {
  /** The chat's id (undefined: none; the answer is then not kept). */
  chatId: string | undefined;
  /** The assistant message the answer continues (the last message's id when that is an assistant's). */
  messageId: string | undefined;
  /** The MMSP request body. */
  mmsp: { model?: string; messages: unknown[]; config: Record<string, unknown> };
}

const bad = (message: string): Response => refusal(400, "InvalidRequestError", message);

/** A chat id the relay keeps: 1…256 characters, no control characters. */
export const isChatId = (id: unknown): id is string =>
  // deno-lint-ignore no-control-regex -- control characters are what it refuses
  typeof id === "string" && id.length > 0 && id.length <= MAX_CHAT_ID && !/[\u0000-\u001f\u007f]/.test(id);

/** The AI SDK's chat request (its parsed JSON body), checked and mapped onto MMSP's, or a 400. */
export function chatAsk(body: unknown): ChatAsk | Response {
  if (!isRecord(body)) return bad("The request body must be a JSON object: the AI SDK's chat request.");
  const { id, messages, model, config } = body;
  if (!Array.isArray(messages)) return bad("`messages` must be the chat's UIMessage array.");
  if (model !== undefined && typeof model !== "string") return bad("`model` must be a string.");
  if (config !== undefined && !isRecord(config)) return bad("`config` must be an object.");
  if (id !== undefined && !isChatId(id)) {
    return bad(`\`id\` (the chat id) must be a string of 1 to ${MAX_CHAT_ID} characters without control characters.`);
  }
  let converted;
  try {
    converted = toMmspMessages(messages as UIMessage[]);
  } catch (e) {
    if (e instanceof UIMessageConversionError || e instanceof TypeError) return bad(e.message);
    throw e;
  }
  // A conversation that ends with an assistant message (its tool outputs just added) continues that
  // message: the answer keeps its id, as the AI SDK's own servers do, so useChat extends it in place.
  const last: unknown = messages.at(-1);
  const messageId = isRecord(last) && last.role === "assistant" && typeof last.id === "string" && last.id !== "" ? last.id : undefined;
  // (the messages' byte fields as base64 text, as MMSP writes them: a Uint8Array would stringify as {"0":…})
  const wire = converted.map((message) => toWireEvent(message));
  return {
    chatId: id,
    messageId,
    mmsp: { ...(model === undefined ? {} : { model }), messages: wire, config: config ?? {} },
  };
}

/** The chat id of `<prefix>/<chatId>/stream` (percent-decoded), `""` for such a path whose id is not one (a 404), or null for other paths. */
export function chatIdOf(pathname: string, prefix: string): string | null {
  if (!pathname.startsWith(`${prefix}/`) || !pathname.endsWith("/stream")) return null;
  const raw = pathname.slice(prefix.length + 1, -"/stream".length);
  if (raw === "" || raw.includes("/")) return null;
  let id: string;
  try {
    id = decodeURIComponent(raw);
  } catch {
    return "";
  }
  return isChatId(id) ? id : "";
}

/** The stream id an `If-Match` names (`"<id>"`, `W/"<id>"`; `*` or none: undefined). */
export function ifMatchOf(request: Request): string | undefined {
  const raw = request.headers.get("if-match");
  if (raw === null || raw.trim() === "*") return undefined;
  const first = raw.split(",")[0]!.trim().replace(/^W\//, "");
  return first.replace(/^"|"$/g, "");
}

/** A path prefix of the door (`chatPath`): checked at the boundary, a TypeError naming the rule. */
export function checkChatPath(path: unknown): void {
  if (path === undefined || path === false) return;
  if (typeof path !== "string" || !/^(\/[A-Za-z0-9._~-]+)+$/.test(path)) {
    throw new TypeError(
      "createRelay: `chatPath` must be a path such as \"/api/chat\" (segments of letters, digits, '.', '_', '~', '-'; no trailing slash), or false for no useChat door.",
    );
  }
}
