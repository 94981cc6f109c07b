// The useChat door's kept answers: SPEC §8 and §10 (a chat's open answer outlives its client: a
// reload resumes it, a Stop reaches the provider; doors/ui-chat/door.ts).
//
// A kept answer is a stream like POST /v1/stream's (its own object, the same bounds, the same
// credential binding), and the chat's record (stream/chat-record.ts) names it as the chat's open
// answer with its assistant message id. One open answer per chat: a new POST stops the previous one
// if it still runs. A chat is its creator's: the credentials and principal (admission's identityOf)
// and the chat id scope the record's name (bind.ts scopedName), so another client (another key's
// principal, other credentials) posting, resuming or stopping the same chat id reaches a record of
// its own: to it the chat has no open answer (204, no ETag), and the first is untouched. Without
// credentials or a key a chat is kept only when its id has at least 16 characters (the AI SDK's are
// 16 random ones): the id is then what guards it; a shorter one is answered stateless. A client that
// goes away does not stop a kept answer (it stays resumable; DELETE stops it).
import { type BindEnv, scopedName } from "../../admission/bind.js";
import type { RelayNamespace } from "../../platform.js";
import { recordCall } from "../../stream/chat-record.js";
import { doorAskText } from "../../stream/door-answer.js";
import { BINDING_HEADER, DOOR_HEADER } from "../../stream/headers.js";
import { newStreamId } from "../../stream/resume.js";
import { chatStreamOptions, uiAnswer, type UiChatDoorParts } from "./answer.js";
import { UI_CHAT_ENCODING } from "./encoding.js";
import { ifMatchOf } from "./request.js";

/** The shortest chat id kept for a client without credentials or key (the AI SDK's own are 16 random characters). */
const MIN_ANONYMOUS_CHAT_ID = 16;
/** How long a GET waits for a stream that is being created (its upstream's answer not there yet). */
const PENDING_WAIT_MS = 10_000;

const noContent = (): Response => new Response(null, { status: 204 });

type Who = NonNullable<ReturnType<UiChatDoorParts<object>["admitted"]["principals"]["get"]>>;

/** A chat's record for one client: its object's name and the client's binding to it. */
interface Record_ {
  name: string;
  binding: string | null;
  who: Who;
}

/** The record of `chatId` for the client of `request` (principal `who`), or null for a chat that is not kept (see the top). */
async function recordOf<E extends object>(
  parts: UiChatDoorParts<E>,
  request: Request,
  env: E,
  who: Who,
  chatId: string,
): Promise<Record_ | null> {
  const identity = await parts.admission.identityOf(request, env, who);
  if (identity === null && chatId.length < MIN_ANONYMOUS_CHAT_ID) return null;
  const name = `chat:${await scopedName(identity, chatId, env as BindEnv)}`;
  return { name, binding: await parts.admission.bindingFor(request, name, env, who), who };
}

/** The record of a POST's chat (its admitted request's principal), or null: not kept. */
export function keptRecord<E extends object>(
  parts: UiChatDoorParts<E>,
  request: Request,
  admitted: Request,
  env: E,
  chatId: string,
): Promise<Record_ | null> {
  return recordOf(parts, request, env, parts.admitted.principals.get(admitted)!, chatId);
}

/** Stops a stream (its object's cancel: upstream aborted, StreamCancelled) under the client's binding to it. */
async function stop<E extends object>(parts: UiChatDoorParts<E>, ns: RelayNamespace, request: Request, env: E, who: Who, id: string) {
  const headers = new Headers();
  const bound = await parts.admission.bindingFor(request, id, env, who);
  if (bound !== null) headers.set(BINDING_HEADER, bound);
  return ns.get(ns.idFromName(id)).fetch("https://stream/cancel", { method: "DELETE", headers });
}

/** What a kept POST brings. */
interface KeptPost<E> {
  request: Request;
  admitted: Request;
  env: E;
  record: Record_;
  messageId: string;
}

/** POST with the namespace and a kept chat id: the answer in a stream's object, the chat's open answer. */
export async function keptChat<E extends object>(parts: UiChatDoorParts<E>, ns: RelayNamespace, post: KeptPost<E>): Promise<Response> {
  const { request, admitted, env, record, messageId } = post;
  const streamId = newStreamId();
  const begun = await recordCall(ns, record.name, "begin", { streamId, messageId }, record.binding);
  if (!begun.ok) return begun; // 403: another's chat
  const { previous } = (await begun.json()) as { previous: string | null };
  if (previous !== null) await (await stop(parts, ns, request, env, record.who, previous)).arrayBuffer(); // one open answer per chat
  const answer = await parts.streams.answer(request, admitted, env, chatStreamOptions(messageId, true, streamId));
  if (!answer.ok) {
    await (await recordCall(ns, record.name, "failed", { streamId })).arrayBuffer();
    return answer; // a refusal: status and body as they came
  }
  const started = (await (await recordCall(ns, record.name, "started", { streamId })).json()) as { cancelled: boolean };
  if (started.cancelled) await (await stop(parts, ns, request, env, record.who, streamId)).arrayBuffer(); // a DELETE came while it was made
  return uiAnswer(answer, streamId);
}

/** GET / DELETE <chatPath>/<chatId>/stream (see door.ts). */
export async function chatStream<E extends object>(parts: UiChatDoorParts<E>, request: Request, env: E, chatId: string): Promise<Response> {
  const cancel = request.method === "DELETE";
  const who = await parts.admission.principalOf(request, cancel ? "cancel" : "resume", env);
  if (who instanceof Response) return who;
  const ns = parts.namespace(env);
  if (!ns) return noContent(); // a stateless relay keeps no answer: none is open
  const record = await recordOf(parts, request, env, who, chatId);
  if (record === null) return noContent(); // a chat that is not kept: none is open
  const ifMatch = ifMatchOf(request);
  const deadline = Date.now() + PENDING_WAIT_MS;
  for (;;) {
    const active = await recordCall(ns, record.name, "active", { ...(ifMatch === undefined ? {} : { ifMatch }), cancel }, record.binding);
    if (active.status !== 200) return active; // 204 none, 403, 412
    const { streamId, state } = (await active.json()) as { streamId: string; state: string };
    if (cancel) {
      if (state === "cancel") return noContent(); // being made: stopped once it exists (keptChat)
      const stopped = await stop(parts, ns, request, env, who, streamId);
      return stopped.status === 404 ? noContent() : stopped; // 204
    }
    const headers = new Headers({ accept: "text/event-stream", "x-resume-after": "-1" });
    headers.set(DOOR_HEADER, doorAskText({ name: UI_CHAT_ENCODING, id: streamId, after: null, whole: false, ids: false }));
    const bound = await parts.admission.bindingFor(request, streamId, env, who);
    if (bound !== null) headers.set(BINDING_HEADER, bound);
    if (ifMatch === undefined) headers.set("x-resume-live-only", "1");
    const answer = await ns.get(ns.idFromName(streamId)).fetch("https://stream/resume", { headers });
    if (answer.status === 404 && state !== "started" && Date.now() < deadline) {
      await answer.arrayBuffer();
      await new Promise((resolve) => setTimeout(resolve, 200)); // not made yet: wait for it
      continue;
    }
    if (answer.status === 404 || answer.status === 204) return noContent(); // expired, or ended
    if (!answer.ok) return answer; // 429
    return uiAnswer(answer, streamId);
  }
}
