// The stream: SPEC §8 and §10 (a chat's record: which kept stream answers a useChat chat now, so a
// reload resumes it and a Stop reaches it; doors/ui-chat/).
//
// It lives in the stream objects' namespace, in the object named `chat:<HMAC of the creator's
// credentials, principal and chat id>` (admission's scoped name; no stream id looks like that: stream
// ids are 32 hex digits), so a relay needs no binding of its own for chats. The stream object hands
// every `https://stream/chat/…` POST to `chatRecord`, and its alarm, when it holds no stream, to
// `chatRecordAlarm`. One row:
//
//   stream_id   the chat's active (or last) stream
//   message_id  the assistant message id its UI message stream starts with (a replay keeps it)
//   binding     the HMAC of the creating request's credentials (bind.ts), or null: a chat created
//               with credentials is used (posted to, resumed, cancelled) only with the same ones
//   state       "pending" (the stream is being created), "cancel" (a DELETE came while pending:
//               the door cancels the stream once it exists), "started"
//
// Routes (x-stream-binding: the request's binding to the record):
//   POST /chat/begin    {streamId, messageId}  → 200 {previous} | 403   the new stream is the active one
//   POST /chat/started  {streamId}             → 200 {cancelled}        created: was it cancelled meanwhile?
//   POST /chat/failed   {streamId}             → 204                    not created: forget it
//   POST /chat/active   {ifMatch?, cancel?}    → 200 {streamId, messageId, state} | 204 none | 412 | 403
//
// The record is deleted by an alarm once its stream cannot exist any more (MAX_STREAM_S + STREAM_TTL_S
// after the last begin).
import { sameHash } from "../admission/bind.js";
import type { Limits } from "../admission/limits.js";
import type { RelayNamespace, RelaySqlStorage, RelayState } from "../platform.js";
import { refusal } from "../refusal.js";
import { BINDING_HEADER } from "./headers.js";

interface Row {
  stream_id: string | null;
  message_id: string | null;
  binding: string | null;
  state: string;
}

/** What a record's routes take. */
interface RecordBody {
  streamId?: string;
  messageId?: string;
  ifMatch?: string;
  cancel?: boolean;
}

const TABLE =
  "CREATE TABLE IF NOT EXISTS chat (id INTEGER PRIMARY KEY, stream_id TEXT, message_id TEXT, binding TEXT, state TEXT NOT NULL)";

function row(sql: RelaySqlStorage): Row | undefined {
  const tables = sql.exec("SELECT name FROM sqlite_master WHERE type = 'table' AND name = 'chat'").toArray();
  if (tables.length === 0) return undefined;
  return sql.exec<Row>("SELECT stream_id, message_id, binding, state FROM chat WHERE id = 0").toArray()[0];
}

/** A 403 when the record is bound to other credentials than the request's, else null. */
function forbidden(record: Row | undefined, binding: string | null): Response | null {
  if (record?.binding == null) return null;
  if (binding !== null && sameHash(binding, record.binding)) return null;
  return refusal(
    403,
    "PermissionDeniedError",
    "This chat was created with credentials (Authorization, Cookie, X-Api-Key…): use it with the same ones.",
  );
}

/** Whether a request to a stream object is one of a chat's record (see the top). */
export const isChatRecordRequest = (request: Request, url: URL): boolean => request.method === "POST" && url.pathname.startsWith("/chat/");

/** One request to a chat's record (see the top). */
export async function chatRecord(state: RelayState, limits: Limits, request: Request, url: URL): Promise<Response> {
  const sql = state.storage.sql;
  const binding = request.headers.get(BINDING_HEADER);
  const body = (await request.json().catch(() => ({}))) as RecordBody;
  const record = row(sql);
  switch (url.pathname) {
    case "/chat/begin": {
      const refused = forbidden(record, binding);
      if (refused) return refused;
      sql.exec(TABLE);
      sql.exec(
        "INSERT OR REPLACE INTO chat (id, stream_id, message_id, binding, state) VALUES (0, ?, ?, ?, 'pending')",
        body.streamId ?? null,
        body.messageId ?? null,
        binding,
      );
      await state.storage.setAlarm(Date.now() + limits.streamMs + limits.ttlMs + 60_000);
      return Response.json({ previous: record?.stream_id ?? null });
    }
    case "/chat/started": {
      if (record?.stream_id !== body.streamId) return Response.json({ cancelled: false });
      const cancelled = record!.state === "cancel";
      sql.exec("UPDATE chat SET state = 'started' WHERE id = 0");
      return Response.json({ cancelled });
    }
    case "/chat/failed": {
      if (record !== undefined && record.stream_id === body.streamId) {
        sql.exec("UPDATE chat SET stream_id = NULL, state = 'started' WHERE id = 0");
      }
      return new Response(null, { status: 204 });
    }
    case "/chat/active":
      return active(sql, record, binding, body);
  }
  return refusal(404, "NotFoundError", "No such route in the chat record.");
}

/** POST /chat/active: the active stream (a cancel while it is being created is noted: the door stops it once it exists). */
function active(sql: RelaySqlStorage, record: Row | undefined, binding: string | null, body: RecordBody): Response {
  const refused = forbidden(record, binding);
  if (refused) return refused;
  if (!record?.stream_id) return new Response(null, { status: 204 });
  if (body.ifMatch !== undefined && body.ifMatch !== record.stream_id) {
    return refusal(412, "PreconditionFailed", "That stream is not this chat's active stream any more (a newer answer replaced it).");
  }
  if (body.cancel && record.state !== "started") {
    sql.exec("UPDATE chat SET state = 'cancel' WHERE id = 0");
    return Response.json({ streamId: record.stream_id, messageId: record.message_id, state: "cancel" });
  }
  return Response.json({ streamId: record.stream_id, messageId: record.message_id, state: record.state });
}

/** The alarm of an object that holds no stream: a chat record past its time is deleted. */
export async function chatRecordAlarm(state: RelayState): Promise<void> {
  if (row(state.storage.sql) !== undefined) await state.storage.deleteAll();
}

/** A call of the door to a chat's record (the object named `record`), under `binding`. */
export function recordCall(
  namespace: RelayNamespace,
  record: string,
  route: "begin" | "started" | "failed" | "active",
  body: RecordBody,
  binding: string | null = null,
): Promise<Response> {
  const headers = new Headers({ "content-type": "application/json" });
  if (binding !== null) headers.set(BINDING_HEADER, binding);
  return namespace.get(namespace.idFromName(record)).fetch(`https://stream/chat/${route}`, {
    method: "POST",
    headers,
    body: JSON.stringify(body),
  });
}
