// SPEC §10 "Stored responses": the responses the Open Responses door keeps on the Durable Object relay.
//
// A response asked with `store` (true or absent) is kept, its input (the whole conversation it
// answered, references resolved) with its resource, for RESPONSES_TTL_S seconds (default seven days;
// not STREAM_TTL_S: a stream is kept for a resume, a response for the next turn of a conversation,
// which may come a day later). Kept per principal: one object of the streams' namespace per principal
// (named `responses <principal>`), so a principal reaches only its own (another's id is, to it, no
// response: a 404, the same as one never kept). In that object's SQLite storage a response is split
// into rows of at most CHUNK_CHARS characters (a row holds 2 MB; a request's body may be 16 MiB), and
// an alarm deletes what expired (a row past its time is gone to a read before the alarm comes too).
// What is kept is the relay's own JSON (JSON.stringify, or the door's resource JSON: the encoder's,
// JSON.stringify byte for byte): it is checked where it is read (`get` parses it, and a text that is no
// JSON is an error naming the response), not parsed again each time a response is kept (a response of
// large calls is megabytes: its parse was a twentieth of such a stream's CPU).
import { RelayConfigError } from "../admission/principal.js";
import type { RelayNamespace, RelayStorage } from "../platform.js";
import { refusal } from "../refusal.js";
import { ownValue } from "../../internal/values.js";
import { parseJsonText } from "../../internal/json.js";

type Json = Record<string, unknown>;

/** The variable of the kept responses' time to live. */
export interface ResponsesEnv {
  /** Seconds a stored response is kept (default 604800: seven days). */
  RESPONSES_TTL_S?: string;
}

/** A kept response: the input it answered (the whole conversation, references resolved) and its resource. */
export interface KeptResponse {
  id: string;
  input: Json[];
  resource: Json;
}

/** Where a relay keeps responses for a principal. */
export interface ResponseKeeper {
  /** The kept response `id` of `principal`, null when none (never kept, expired, another's). */
  get(principal: string, id: string): Promise<KeptResponse | null>;
  /** Keeps `response` for `principal` (its own time to live). */
  put(principal: string, response: KeptResponse): Promise<void>;
  /** Keeps the input of response `id` for `principal` before it is answered (the door, at its creation). */
  begin(principal: string, id: string, input: Json[]): Promise<void>;
  /**
   * Keeps the resource of response `id` begun before (the door's encoding, before the terminal event):
   * then it is kept. The resource, or its JSON text as the door wrote it (not copied nor written again).
   */
  finish(principal: string, id: string, resource: Json | string): Promise<void>;
}

/** The default time to live of a kept response: seven days. */
export const DEFAULT_RESPONSES_TTL_S = 7 * 24 * 3600;
/** The most characters in one storage row (4 bytes each at most in UTF-8: under SQLite's 2 MB a row). */
export const CHUNK_CHARS = 480_000;
const TABLE = "kept_responses";
const ORIGIN = "https://responses.relay";
/** What a put keeps: a whole response (""), or one begun ("input") and finished ("resource"). */
const PARTS = ["", "input", "resource"];

/** RESPONSES_TTL_S of `env` in milliseconds (a RelayConfigError when it is no whole number of seconds ≥ 1). */
export function responsesTtlMs(env: ResponsesEnv): number {
  const text = ownValue(env, "RESPONSES_TTL_S");
  if (text === undefined || text === "") return DEFAULT_RESPONSES_TTL_S * 1000;
  if (typeof text !== "string" || !/^[1-9][0-9]{0,9}$/.test(text)) {
    throw new RelayConfigError("RESPONSES_TTL_S", "must be a whole number of seconds, 1 or more (default 604800: seven days).");
  }
  return Number(text) * 1000;
}

/** The keeper of a Durable Object relay: each principal's responses in that principal's object of `namespace`. */
export function durableResponses(namespace: RelayNamespace, ttlMs: number): ResponseKeeper {
  const stub = (principal: string) => namespace.get(namespace.idFromName(`responses ${principal}`));
  return {
    async get(principal, id) {
      const answer = await stub(principal).fetch(`${ORIGIN}/responses/get?id=${encodeURIComponent(id)}`);
      if (answer.status === 404) return null;
      if (!answer.ok) throw new Error(`the responses' object answered ${answer.status}`);
      const text = await answer.text();
      try {
        return parseJsonText(text) as KeptResponse;
      } catch {
        throw new Error(`the kept response ${id} is no JSON (${text.length} characters): the relay kept what it should not have`);
      }
    },
    put: (principal, response) => send(principal, "", response.id, JSON.stringify(response)),
    begin: (principal, id, input) => send(principal, "input", id, JSON.stringify(input)),
    finish: (principal, id, resource) =>
      send(principal, "resource", id, typeof resource === "string" ? resource : JSON.stringify(resource)),
  };

  /** Keeps `body` (JSON text) as `part` of response `id` (checked where it is read: `get`). */
  async function send(principal: string, part: string, id: string, body: string): Promise<void> {
    const query = new URLSearchParams({ ttl_ms: String(ttlMs), id, part });
    const answer = await stub(principal).fetch(`${ORIGIN}/responses/put?${query}`, { method: "POST", body });
    if (!answer.ok) throw new Error(`the responses' object answered ${answer.status}`);
  }
}

/** The kept responses inside an object (its `/responses/…` requests and its alarm). */
export class KeptResponses {
  private ready = false;

  constructor(private readonly storage: RelayStorage) {}

  /** Whether `url` is a request for the kept responses. */
  static handles(url: URL): boolean {
    return url.pathname.startsWith("/responses/");
  }

  private get sql() {
    if (!this.ready) {
      this.storage.sql.exec(
        `CREATE TABLE IF NOT EXISTS ${TABLE} (id TEXT NOT NULL, seq INTEGER NOT NULL, expires INTEGER NOT NULL, chunk TEXT NOT NULL, PRIMARY KEY (id, seq))`,
      );
      this.ready = true;
    }
    return this.storage.sql;
  }

  /** `/responses/get?id=` (the response, or 404) and `/responses/put?ttl_ms=` (keeps the body's response). */
  async fetch(request: Request): Promise<Response> {
    const url = new URL(request.url);
    if (url.pathname === "/responses/get") return this.get(url.searchParams.get("id") ?? "");
    if (url.pathname === "/responses/put" && request.method === "POST") {
      const ttl = Number(url.searchParams.get("ttl_ms"));
      const text = await request.text();
      const id = url.searchParams.get("id") ?? "";
      const part = url.searchParams.get("part") ?? "";
      if (id === "" || !PARTS.includes(part) || !Number.isSafeInteger(ttl) || ttl < 1 || text === "") {
        return refusal(400, "InvalidRequestError", "No response to keep.");
      }
      return this.put(part ? `${id} ${part}` : id, text, Date.now() + ttl);
    }
    return refusal(404, "NotFoundError", "No such route in the responses' object.");
  }

  /** A kept response: kept whole (put), or begun and finished (its input and resource, kept apart). */
  private get(id: string): Response {
    const text = this.text(id) ?? this.parts(id);
    if (text === null) return refusal(404, "NotFoundError", "No such response.");
    return new Response(text, { headers: { "content-type": "application/json" } });
  }

  private parts(id: string): string | null {
    const resource = this.text(`${id} resource`);
    return resource === null ? null : `{"id":${JSON.stringify(id)},"input":${this.text(`${id} input`) ?? "[]"},"resource":${resource}}`;
  }

  /** The text kept under `key`, or null (none, or expired). */
  private text(key: string): string | null {
    const rows = this.sql.exec<{ chunk: string; expires: number }>(`SELECT chunk, expires FROM ${TABLE} WHERE id = ? ORDER BY seq`, key)
      .toArray();
    if (rows.length === 0 || rows[0]!.expires <= Date.now()) return null;
    return rows.map((r) => r.chunk).join("");
  }

  private async put(id: string, text: string, expires: number): Promise<Response> {
    const sql = this.sql;
    sql.exec(`DELETE FROM ${TABLE} WHERE id = ?`, id);
    for (let seq = 0, at = 0; at < text.length || seq === 0; seq++, at += CHUNK_CHARS) {
      sql.exec(`INSERT INTO ${TABLE} (id, seq, expires, chunk) VALUES (?, ?, ?, ?)`, id, seq, expires, text.slice(at, at + CHUNK_CHARS));
    }
    await this.schedule();
    return new Response(null, { status: 204 });
  }

  private async schedule(): Promise<void> {
    const next = this.sql.exec<{ next: number | null }>(`SELECT MIN(expires) AS next FROM ${TABLE}`).one().next;
    if (next !== null) await this.storage.setAlarm(next);
  }

  /** The object's alarm, when it keeps responses: what expired deleted, the next expiry scheduled. False when it keeps none. */
  async alarm(): Promise<boolean> {
    const exists = this.storage.sql.exec(`SELECT name FROM sqlite_master WHERE type = 'table' AND name = ?`, TABLE).toArray().length > 0;
    if (!exists) return false;
    this.sql.exec(`DELETE FROM ${TABLE} WHERE expires <= ?`, Date.now());
    await this.schedule();
    return true;
  }
}
