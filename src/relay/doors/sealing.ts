// SPEC §9 "Where each item came from" and §10 "Doors": how a door composes the relay's seal (seal.ts,
// the one format) — another provider's value sealed on the way out, a sealed value opened on the way in.
//
// Out: a door's encoding names its sealing step (`sealingStep`: stream/encoding.ts runs it on each
// event before the encoder, wherever the door's answer is written: first, whole, resumed at the door's
// route or at GET /v1/streams/<id>, stateless or in the stream's object), which gives each item whose
// bound value another provider made the fidelity its door writes of that value sealed (seal.ts) — a
// Chat `reasoning_details` entry, a Messages `signature`, a Gemini `thoughtSignature` — so no text of
// the model's is ever sealed, and no answer goes out with a value unsealed. With no seal key (neither
// RELAY_SEAL_KEY nor BIND_SECRET) the value is left out: the thinking goes without its proof, and its
// provider is sent it as foreign thinking (history.ts).
//
// In: a door's translation marks a sealed value it meets (`sealedFidelity`: the value and the member it
// came in), and `openSeals` opens each after it (async: the translation is sync), giving the item the
// fidelity it was sealed from — its maker's own again, which the builders send to that maker only. A
// value that bears the mark and does not open is refused by the door naming its member (`SealRefused`).
//
// A tool call's signature (a Gemini 3 call's thought signature) where the door's API has no place for
// it on the call: the sealing step writes it, sealed with the call's id (seal.ts `call`), in an item of
// its own just before the call (`CarrierWrite`: a Messages `redacted_thinking` block; the Open
// Responses door writes a reasoning item); opened on the way in, `toTheirCalls` gives it to that call
// of the same message again, and the carrier is no thinking: it is not sent as one, to any provider.
import { isRecord } from "../../internal/values.js";
import { boundPart, seal, type Sealed, type SealEnv, SealForged, unseal } from "./seal.js";
import { RelayConfigError } from "../admission/principal.js";
import type { ContentItem, UniEvent } from "../../schema.js";
import type { EncodingContext, SealStep } from "../stream/encoding.js";

type Json = Record<string, unknown>;

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

/** The fidelity a door writes of an item's sealed value (null: no seal key, the value left out), or null for none. */
export type SealedWrite = (sealed: string | null, item: ContentItem) => Json | null;

/**
 * The items a door writes just before a tool call to carry the call's signature another provider made
 * (`sealed`: the value sealed with the call's id; null: no seal key, none), where its API has no place
 * for it on the call itself (a Messages `redacted_thinking` block before its `tool_use`).
 */
export type CarrierWrite = (sealed: string | null) => ContentItem[];

type ToolCall = Extract<ContentItem, { type: "tool_call.delta" | "tool_call.done" }>;

/**
 * A door's sealing step (its encoding's `sealing`): each item (of those `sealable` takes) whose bound
 * value another provider than `own` made given the fidelity `write` makes of that value sealed under
 * the key of the env where the answer is written; an event with none goes on as it is, at once.
 */
export function sealingStep(
  own: string,
  write: SealedWrite,
  sealable: (item: ContentItem) => boolean = () => true,
  carrier?: CarrierWrite,
): (context: EncodingContext) => SealStep {
  const isCall = (item: ContentItem): item is ToolCall => item.type === "tool_call.delta" || item.type === "tool_call.done";
  const partOf = (item: ContentItem): Sealed | undefined =>
    "fidelity" in item && (sealable(item) || (carrier !== undefined && isCall(item))) ? foreignPart(item.fidelity, own) : undefined;
  return (context) => {
    const env = sealEnv(context.env);
    let keyless = false; // (no seal key: found once per answer)
    const sealed = async (part: Sealed): Promise<string | null> => {
      if (keyless) return null;
      try {
        return await seal(part, env);
      } catch (e) {
        if (!(e instanceof RelayConfigError)) throw e;
        keyless = true;
        return null;
      }
    };
    const carried = new Set<string>(); // (the calls whose carrier was written: once per call)
    return (event) => {
      if (!event.content_items.some((item) => partOf(item) !== undefined)) return event;
      return (async () => {
        const items: ContentItem[] = [];
        for (const item of event.content_items) {
          const part = partOf(item);
          if (part === undefined) {
            items.push(item);
            continue;
          }
          if (carrier !== undefined && !sealable(item) && isCall(item)) {
            // (a call's signature: its own item just before it, sealed with the call's id; the call goes without it)
            if (!carried.has(item.tool_call_id)) {
              carried.add(item.tool_call_id);
              items.push(...carrier(await sealed({ ...part, call: item.tool_call_id })));
            }
            const { fidelity: _, ...call } = item;
            items.push(call as ContentItem);
            continue;
          }
          const fidelity = write(await sealed(part), item);
          const { fidelity: _, ...plain } = item as ContentItem & { fidelity?: unknown };
          items.push((fidelity === null ? plain : { ...plain, fidelity }) as ContentItem);
        }
        return { ...event, content_items: items } as UniEvent;
      })();
    };
  };
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

/** Whether `body` (an MMSP request a door translated) carries a value that came sealed (`sealedFidelity`). */
export function hasSeals(body: unknown): boolean {
  if (!isRecord(body) || !Array.isArray(body.messages)) return false;
  return body.messages.some((message) =>
    isRecord(message) && Array.isArray(message.content_items) &&
    message.content_items.some((item) => isRecord(item) && isRecord(item.fidelity) && typeof item.fidelity[SEALED] === "string")
  );
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
    message.content_items = toTheirCalls(message.content_items);
  }
  return body;
}

/**
 * A message's items with each carrier (an item whose opened value names a call: `call`) taken out and
 * its value given to that call of the same message as its fidelity (its maker's own again: the
 * builders send it to that maker only, SPEC §9); a carrier whose call is not in the message is left
 * out (it is no thinking of the model's). Every door that carries calls' signatures composes this.
 */
export function toTheirCalls<T>(items: T[]): T[] {
  const carried = new Map<string, Json>();
  for (const item of items) {
    const fidelity = isRecord(item) && isRecord(item.fidelity) ? item.fidelity : undefined;
    if (fidelity && typeof fidelity.call === "string" && typeof fidelity.provider === "string") {
      const { call, ...value } = fidelity;
      carried.set(call, value);
    }
  }
  if (carried.size === 0) return items;
  return items.flatMap((item) => {
    if (!isRecord(item)) return [item];
    if (isRecord(item.fidelity) && typeof item.fidelity.call === "string" && typeof item.fidelity.provider === "string") return [];
    const value = item.type === "tool_call.done" && typeof item.tool_call_id === "string" ? carried.get(item.tool_call_id) : undefined;
    return value === undefined ? [item] : [{ ...item, fidelity: value } as T];
  });
}
