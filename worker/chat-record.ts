// A chat's record: which kept stream answers the chat now (resumable /api/chat, chat.ts).
//
// It lives in the STREAMS namespace, in the object named `chat:<HMAC of the creator's credentials and the chat id>` (chat.ts
// recordName; no stream id looks like that: stream ids are 32 hex digits), so a relay needs no binding of its own for chats. The
// StreamObject hands every `https://stream/chat/…` request and its alarm (when it holds no stream)
// to this module. One row:
//
//   stream_id   the chat's active (or last) stream
//   message_id  the assistant message id its UI message stream starts with (a replay keeps it)
//   binding     the HMAC of the creating request's credentials (bind.ts), or null: a chat created
//               with credentials is used (posted to, resumed, cancelled) only with the same ones
//   state       "pending" (the stream is being created), "cancel" (a DELETE came while pending:
//               the Worker cancels the stream once it exists), "started"
//
// Routes (from the Worker, index.ts / chat.ts; x-stream-binding: the request's chat binding):
//   POST /chat/begin    {streamId, messageId}  → 200 {previous} | 403   the new stream is the active one
//   POST /chat/started  {streamId}             → 200 {cancelled}        created: was it cancelled meanwhile?
//   POST /chat/failed   {streamId}             → 204                    not created: forget it
//   POST /chat/active   {ifMatch?, cancel?}    → 200 {streamId, messageId, state} | 204 none | 412 | 403
//
// The record is deleted by an alarm once its stream cannot exist any more (MAX_STREAM_S + STREAM_TTL_S
// after the last begin).
import type { Env } from "./env.ts";
import type { RelayState } from "../src/relay/platform.ts";
import { sameHash } from "../src/relay/admission/bind.ts";
import { limits } from "../src/relay/admission/limits.ts";
import { seconds } from "../src/relay/stream/resume.ts";
import { refusal } from "../src/relay/refusal.ts";

interface Row {
  stream_id: string | null;
  message_id: string | null;
  binding: string | null;
  state: string;
}

const TABLE =
  "CREATE TABLE IF NOT EXISTS chat (id INTEGER PRIMARY KEY, stream_id TEXT, message_id TEXT, binding TEXT, state TEXT NOT NULL)";

function row(sql: SqlStorage): Row | undefined {
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

/** One request of the Worker to a chat's record (see the top). */
export async function chatRecord(ctx: RelayState, env: Env, request: Request, url: URL, bindingHeader: string): Promise<Response> {
  const sql = ctx.storage.sql;
  const binding = request.headers.get(bindingHeader);
  const body = (await request.json().catch(() => ({}))) as { streamId?: string; messageId?: string; ifMatch?: string; cancel?: boolean };
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
      const { streamMs } = limits(env);
      await ctx.storage.setAlarm(Date.now() + streamMs + seconds(env.STREAM_TTL_S, 300) * 1000 + 60_000);
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
    case "/chat/active": {
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
  }
  return refusal(404, "NotFoundError", "No such route in the chat record.");
}

/** The alarm of an object that holds no stream: a chat record past its time is deleted. */
export async function chatRecordAlarm(ctx: RelayState): Promise<void> {
  if (row(ctx.storage.sql) !== undefined) await ctx.storage.deleteAll();
}
