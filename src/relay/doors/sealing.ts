// SPEC §9 "Where each item came from" and §10 "Doors": how a door composes the relay's seal (seal.ts,
// the one format) — another provider's value sealed on the way out, a sealed value opened on the way in.
//
// Out: a door's encoding runs where the stream's events are (stream/encoding.ts), synchronously, with
// no key; so it writes another provider's bound value as a *pending* value (`pendingFidelity`: the
// mark `mmsp-pending.` and the base64url of the bound part's JSON), and the door seals every pending
// value at its own places in the answer (`sealedAnswer`: each SSE `data:` line or the whole JSON body
// that holds one, walked, the value at a spot the door names replaced by `seal`). A door names its
// spots (a Messages `signature_delta`'s `signature`…), so no text of the model's is ever sealed. With
// no seal key (neither RELAY_SEAL_KEY nor BIND_SECRET) the value is left out: the thinking goes without
// its proof, and its provider is sent it as foreign thinking (history.ts).
//
// In: a door's translation marks a sealed value it meets (`sealedFidelity`: the value and the member it
// came in), and `openSeals` opens each after it (async: the translation is sync), giving the item the
// fidelity it was sealed from — its maker's own again, which the builders send to that maker only. A
// value that bears the mark and does not open is refused by the door naming its member (`SealRefused`).
import { isRecord } from "../../internal/values.js";
import { parseJsonText } from "../../internal/json.js";
import { boundPart, seal, type Sealed, type SealEnv, SealForged, unseal } from "./seal.js";
import { RelayConfigError } from "../admission/principal.js";
import type { ContentItem, UniEvent } from "../../schema.js";

type Json = Record<string, unknown>;

/** The mark of a value the door's answer still has to seal. */
export const PENDING_MARK = "mmsp-pending.";

/** The member a translation puts on an item whose value came sealed (opened by `openSeals`). */
const SEALED = "mmsp_sealed";

/**
 * The bound part of `fidelity` when it is another provider's than `own` (what the door seals), else
 * undefined (the door's own API's provider's value, or nothing bound: written as it is).
 */
export function foreignPart(fidelity: unknown, own: string): Sealed | undefined {
  const part = boundPart(fidelity);
  return part === undefined || part.provider === own ? undefined : part;
}

/** A pending value (written by a door's encoding, sealed by `sealedAnswer`) of a bound part. */
export function pendingValue(part: Sealed): string {
  let binary = "";
  for (const byte of new TextEncoder().encode(JSON.stringify(part))) binary += String.fromCharCode(byte);
  return PENDING_MARK + btoa(binary).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}

function pendingPart(text: string): Sealed | undefined {
  try {
    const b = atob(text.slice(PENDING_MARK.length).replace(/-/g, "+").replace(/_/g, "/"));
    const value = parseJsonText(new TextDecoder().decode(Uint8Array.from(b, (c) => c.charCodeAt(0))));
    return isRecord(value) && typeof value.provider === "string" ? (value as Sealed) : undefined;
  } catch {
    return undefined;
  }
}

/**
 * `event` with each item whose fidelity is another provider's than `own` given the fidelity `write`
 * makes of its pending value (the event itself when none is): what a door's encoding writes.
 */
export function pendingEvent(event: UniEvent, own: string, write: (pending: string, item: ContentItem) => Json): UniEvent {
  let changed = false;
  const items = event.content_items.map((item) => {
    const part = "fidelity" in item ? foreignPart(item.fidelity, own) : undefined;
    if (part === undefined) return item;
    changed = true;
    return { ...item, fidelity: write(pendingValue(part), item) } as ContentItem;
  });
  return changed ? { ...event, content_items: items } : event;
}

/** A door's places for a sealed value: the members of `owner` (an object of its answer) that may hold one. */
export type SealSpots = (owner: Json) => readonly string[];

/** Members never walked: a tool call's arguments and text are the model's, not the door's places. */
const NOT_WALKED = new Set(["input", "args", "arguments", "text", "thinking", "content_text"]);

/** Each pending value at a spot of `value` sealed (or left out without a key), in place. */
async function sealAt(value: unknown, spots: SealSpots, env: SealEnv): Promise<void> {
  if (Array.isArray(value)) {
    for (const v of value) await sealAt(v, spots, env);
    return;
  }
  if (!isRecord(value)) return;
  for (const key of spots(value)) {
    const text = value[key];
    if (typeof text !== "string" || !text.startsWith(PENDING_MARK)) continue;
    const part = pendingPart(text);
    let sealed: string | undefined;
    try {
      sealed = part === undefined ? undefined : await seal(part, env);
    } catch (e) {
      if (!(e instanceof RelayConfigError)) throw e;
    }
    if (sealed === undefined) delete value[key];
    else value[key] = sealed;
  }
  for (const [key, v] of Object.entries(value)) if (!NOT_WALKED.has(key) && typeof v === "object") await sealAt(v, spots, env);
}

/** One line of the answer (an SSE line, or a whole JSON body) with its pending values sealed. */
async function sealedLine(line: string, spots: SealSpots, env: SealEnv): Promise<string> {
  if (!line.includes(PENDING_MARK)) return line;
  const prefix = line.startsWith("data:") ? line.slice(0, line.startsWith("data: ") ? 6 : 5) : "";
  let value: unknown;
  try {
    value = parseJsonText(line.slice(prefix.length));
  } catch {
    return line;
  }
  await sealAt(value, spots, env);
  return prefix + JSON.stringify(value) + (line.endsWith("\r") ? "\r" : ""); // (a CRLF line stays one: Gemini's)
}

/** `answer` with each pending value at the door's spots sealed (the same answer when it has no body or failed). */
export function sealedAnswer(answer: Response, env: SealEnv, spots: SealSpots): Response {
  if (!answer.ok || answer.body === null) return answer;
  const reader = answer.body.getReader();
  const utf8 = new TextDecoder();
  const out = new TextEncoder();
  let buffered = "";
  const body = new ReadableStream<Uint8Array>({
    async pull(controller) {
      for (;;) {
        const r = await reader.read();
        if (r.done) {
          buffered += utf8.decode();
          if (buffered) controller.enqueue(out.encode(await sealedLine(buffered, spots, env)));
          return controller.close();
        }
        const was = buffered;
        buffered += utf8.decode(r.value, { stream: true });
        // (a chunk of whole lines with nothing to seal, as an encoding's loop writes them: passed on as it came)
        if (was === "" && buffered.endsWith("\n") && !buffered.includes(PENDING_MARK)) {
          buffered = "";
          return controller.enqueue(r.value);
        }
        const nl = buffered.lastIndexOf("\n");
        if (nl < 0) continue;
        const lines = buffered.slice(0, nl).split("\n");
        buffered = buffered.slice(nl + 1);
        const sealed: string[] = [];
        for (const line of lines) sealed.push(await sealedLine(line, spots, env));
        return controller.enqueue(out.encode(sealed.join("\n") + "\n"));
      }
    },
    cancel: (reason) => reader.cancel(reason),
  }, { highWaterMark: 0 });
  const headers = new Headers(answer.headers);
  headers.delete("content-length");
  return new Response(body, { status: answer.status, statusText: answer.statusText, headers });
}

/** The fidelity a translation gives an item whose value came sealed (`member`: where, for a refusal). */
export function sealedFidelity(text: string, member: string): Json {
  return { [SEALED]: text, member };
}

/** A door's env as the seal's (own variables only, read by seal.ts; a door's env type is its relay's). */
export const sealEnv = (env: unknown): SealEnv => (isRecord(env) ? (env as SealEnv) : {});

/** A sealed value that does not open (altered, forged, or sealed under another key): its member. */
export class SealRefused extends Error {
  constructor(readonly member: string, cause: SealForged) {
    super(`${member}: ${cause.message}; send back the value as the relay wrote it, or leave it out.`);
  }
}

/**
 * `body`'s (an MMSP request's) sealed values opened: each item that `sealedFidelity` marked given the
 * fidelity it was sealed from. A value that does not open is a `SealRefused` naming its member.
 */
export async function openSeals(body: unknown, env: SealEnv): Promise<unknown> {
  if (!isRecord(body) || !Array.isArray(body.messages)) return body;
  for (const message of body.messages) {
    if (!isRecord(message) || !Array.isArray(message.content_items)) continue;
    for (const item of message.content_items) {
      if (!isRecord(item) || !isRecord(item.fidelity) || typeof item.fidelity[SEALED] !== "string") continue;
      const { [SEALED]: text, member } = item.fidelity as { [SEALED]: string; member: string };
      try {
        item.fidelity = { ...(await unseal(text, env)) };
      } catch (e) {
        throw e instanceof SealForged ? new SealRefused(member, e) : e;
      }
    }
  }
  return body;
}
