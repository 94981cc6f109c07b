// The Open Responses door's state: SPEC §10 "Stored responses" (`include`, `store`,
// `previous_response_id`, `item_reference`) and §9 "Where each item came from" (sealed thinking).
//
// Before a request is translated (request.ts), its state members are taken out of it and done:
// `include: ["reasoning.encrypted_content"]` asks for the thinking's provider data, sealed (seal.ts);
// `store` (true or absent, OpenAI's default) keeps the response where the relay keeps responses
// (a Durable Object relay: stream/responses.ts) and is accepted but keeps nothing on a stateless one;
// `previous_response_id` and `item_reference` items are replaced by what was kept for the same
// principal (404 for another's or an expired one), and refused on a relay that keeps nothing, saying
// what to send instead. After the translation, a reasoning item's sealed `encrypted_content` is opened
// to the fidelity it was sealed from (its maker's own thinking again: history.ts sends it back to that
// maker only, and another provider gets what `foreignThinking` says); an unsealed one is the
// Responses API's (the door's own API's provider's); a forged or altered one is refused by name; one
// that carries a call's signature goes to its call (doors/sealing.ts `toTheirCalls`). With `store`, an
// item the relay issued and a client sent back by value is completed from the kept response, as
// OpenAI does with stored items (`completed`).
// On the way out, sealStage seals each thinking's provider data for the answer (or strips it).
import type { UniMessage } from "../../../schema.js";
import { isRecord } from "../../../internal/values.js";
import { isSealed, seal, type SealEnv, SealForged, unseal } from "../seal.js";
import { toTheirCalls } from "../sealing.js";
import { Refused, refusingAsync } from "../refused.js";
import { includeOf } from "./members.js";
import { openResponsesError } from "./request.js";
import type { KeptResponse, ResponseKeeper } from "../../stream/responses.js";

export type { KeptResponse, ResponseKeeper };

type Json = Record<string, unknown>;

/** The door's own API's provider: an unsealed `encrypted_content` is its (SPEC §10). */
export const OWN_PROVIDER = "openai-responses";

/** What the request asked of the door's state. */
export interface StateAsk {
  /** `include` has `reasoning.encrypted_content`: reasoning items carry their sealed provider data. */
  encrypted: boolean;
  /** The response is kept (store true or absent, on a relay that keeps responses). */
  store: boolean;
  /** The `previous_response_id` asked for (echoed by the resource). */
  previous: string | null;
  /** The whole input the response answers (the previous response's input and output, references resolved). */
  input: Json[];
}

const STATELESS = "This relay keeps no responses (it has no Durable Object for them): " +
  'send the whole conversation in `input` instead, with `store: false` and `include: ["reasoning.encrypted_content"]` ' +
  "so reasoning items carry what their provider needs back.";

/**
 * `body` without its state members, and what they ask: references resolved for `principal` from
 * `keeper` (null: the relay keeps nothing), or the refusal in the spec's shape.
 */
export async function stateOf(
  body: unknown,
  principal: string,
  keeper: ResponseKeeper | null,
  env: SealEnv,
): Promise<{ body: Json; state: StateAsk } | Response> {
  return await refusingAsync(() => resolve(body, principal, keeper, env), (r) => openResponsesError(r.status, r.type, r.message, r.param));
}

async function resolve(
  body: unknown,
  principal: string,
  keeper: ResponseKeeper | null,
  env: SealEnv,
): Promise<{ body: Json; state: StateAsk }> {
  if (!isRecord(body)) return { body: body as Json, state: { encrypted: false, store: false, previous: null, input: [] } };
  const { include, store, previous_response_id: previous, ...rest } = body;
  const included = includeOf(include);
  if ("message" in included) throw new Refused(included.message, included.param);
  const encrypted = included.encryptedReasoning;
  // (asked for sealed values, the key must be there: a misconfigured relay says so before anything is asked)
  if (encrypted) await seal({ provider: OWN_PROVIDER }, env);
  if (store !== undefined && store !== null && typeof store !== "boolean") {
    throw new Refused("store must be a boolean.", "store");
  }
  if (previous !== undefined && previous !== null && typeof previous !== "string") {
    throw new Refused("previous_response_id must be a string.", "previous_response_id");
  }
  const before: Json[] = [];
  if (typeof previous === "string") {
    const kept = await keptOf(previous, "previous_response_id", principal, keeper);
    before.push(...kept.input, ...outputItems(kept.resource));
  }
  const given = rest.input === undefined || rest.input === null
    ? []
    : typeof rest.input === "string"
    ? [{ type: "message", role: "user", content: rest.input }]
    : rest.input;
  if (!Array.isArray(given)) return { body: rest, state: { encrypted, store: false, previous: null, input: [] } };
  const input: Json[] = [...before];
  for (const [i, item] of given.entries()) {
    if (isRecord(item) && item.type === "item_reference") {
      if (typeof item.id !== "string") throw new Refused(`input[${i}].id must be a string.`, `input[${i}].id`);
      input.push(await referenced(item.id, `input[${i}]`, principal, keeper, before));
    } else input.push(item as Json);
  }
  if (keeper !== null) await completed(input, principal, keeper);
  if (before.length > 0 || input.length !== given.length || input.some((item, i) => item !== given[i])) rest.input = input;
  return {
    body: rest,
    state: { encrypted, store: keeper !== null && store !== false, previous: typeof previous === "string" ? previous : null, input },
  };
}

async function keptOf(id: string, param: string, principal: string, keeper: ResponseKeeper | null): Promise<KeptResponse> {
  if (keeper === null) throw new Refused(`${param}: ${STATELESS}`, param);
  const kept = /^resp_[0-9a-f]{32}$/.test(id) ? await keeper.get(principal, id) : null;
  if (kept === null) {
    throw new Refused(
      `${param}: no response '${id.slice(0, 64)}' is kept for you (never stored, expired, or another's).`,
      param,
      404,
      "NotFoundError",
    );
  }
  return kept;
}

/** The item an `item_reference` names: an output item of a kept response (its id: `<response id>_<index>`, the encoder's). */
async function referenced(id: string, at: string, principal: string, keeper: ResponseKeeper | null, before: Json[]): Promise<Json> {
  const earlier = before.find((item) => item.id === id);
  if (earlier) return earlier;
  const owner = /^(?:msg|rs|fc)_([0-9a-f]{32})_[0-9]+$/.exec(id) ?? /^(resp_[0-9a-f]{32})/.exec(id);
  const responseId = owner ? (owner[1].startsWith("resp_") ? owner[1] : `resp_${owner[1]}`) : "";
  if (keeper === null) throw new Refused(`${at}: an item_reference, but ${STATELESS}`, at);
  const kept = responseId === "" ? null : await keeper.get(principal, responseId);
  const item = kept ? [...kept.input, ...outputItems(kept.resource)].find((it) => it.id === id) : undefined;
  if (!item) {
    throw new Refused(
      `${at}: no item '${id.slice(0, 80)}' is kept for you (never stored, expired, or another's).`,
      at,
      404,
      "NotFoundError",
    );
  }
  return item;
}

/** The response and output index of an item id the relay issued (`<rs|fc|…>_<hex>_<index>`, the encoder's), or null. */
function issued(id: unknown): { response: string; index: number } | null {
  const m = typeof id === "string" ? /^(?:msg|rs|fc|ctc)_([0-9a-f]{32})_([0-9]+)$/.exec(id) : null;
  return m ? { response: `resp_${m[1]}`, index: Number(m[2]) } : null;
}

/** A reasoning item that says nothing a client reads (no summary or content text): what carries a value. */
const textless = (item: Json): boolean =>
  item.type === "reasoning" &&
  [...(Array.isArray(item.summary) ? item.summary : []), ...(Array.isArray(item.content) ? item.content : [])]
    .every((p) => !isRecord(p) || typeof p.text !== "string" || p.text === "");

/**
 * `input` (in place) with what a response kept for `principal` holds and a client sent back by value
 * without it, as OpenAI does with `store`: an issued reasoning item without `encrypted_content` gets
 * the kept one's (the sealed value `include` did not ask to show), and an issued call whose
 * kept response had a textless reasoning item just before it (a call's signature: sealing.ts) gets that
 * item back before it when the input lacks it. One `keeper.get` per response; an id not kept for the
 * principal (another's, expired) leaves its item as it is.
 */
async function completed(input: Json[], principal: string, keeper: ResponseKeeper): Promise<void> {
  const responses = new Map<string, Promise<KeptResponse | null>>();
  const keptItem = async (response: string, index: number): Promise<Json | undefined> => {
    if (!responses.has(response)) responses.set(response, keeper.get(principal, response));
    const kept = await responses.get(response)!;
    return kept ? outputItems(kept.resource)[index] : undefined;
  };
  for (let i = 0; i < input.length; i++) {
    const item = input[i]!;
    const at = issued(item.id);
    if (at === null) continue;
    if (item.type === "reasoning" && typeof item.encrypted_content !== "string") {
      const kept = await keptItem(at.response, at.index);
      const encrypted = kept !== undefined && kept.id === item.id ? kept.encrypted_content : undefined;
      if (typeof encrypted === "string") input[i] = { ...item, encrypted_content: encrypted };
    } else if ((item.type === "function_call" || item.type === "custom_tool_call") && at.index > 0) {
      const kept = await keptItem(at.response, at.index - 1);
      const carrier = kept && textless(kept) && typeof kept.encrypted_content === "string" ? kept : undefined;
      if (carrier && !input.some((it) => it.id === carrier.id)) {
        input.splice(i, 0, structuredClone(carrier));
        i++;
      }
    }
  }
}

/** A kept resource's output items, as input items. */
export function outputItems(resource: Json): Json[] {
  return Array.isArray(resource.output) ? resource.output.filter(isRecord) : [];
}

/**
 * The translated messages with each sealed `encrypted_content` opened to the fidelity it was sealed
 * from (request.ts gives a reasoning item's `encrypted_content` as the Responses API's); the 400
 * naming the item when one is forged or altered.
 */
export async function openSeals(messages: UniMessage[], env: SealEnv): Promise<Response | null> {
  for (const [m, message] of messages.entries()) {
    for (const [i, item] of message.content_items.entries()) {
      const fidelity = "fidelity" in item && isRecord(item.fidelity) ? item.fidelity : undefined;
      const text = fidelity?.encrypted_content;
      if (typeof text !== "string" || !isSealed(text)) continue;
      try {
        const opened = await unseal(text, env);
        if (opened) (item as { fidelity?: unknown }).fidelity = { ...withoutBound(fidelity!), ...opened };
      } catch (e) {
        if (!(e instanceof SealForged)) throw e;
        return openResponsesError(
          400,
          "InvalidRequestError",
          `A reasoning item's encrypted_content (message ${m}, item ${i}) is ${e.message}: send it back as the relay gave it, or leave it out.`,
          "input.encrypted_content",
        );
      }
    }
    // (a call's signature carried by a reasoning item goes to its call: doors/sealing.ts)
    message.content_items = toTheirCalls(message.content_items);
  }
  return null;
}

export function withoutBound(fidelity: Record<string, unknown>): Record<string, unknown> {
  const { encrypted_content: _e, signature: _s, reasoning_details: _r, provider: _p, model: _m, ...rest } = fidelity;
  return rest;
}

/** A kept resource as a client retrieves it: `encrypted_content` only where `include` asks for it. */
export function shownResource(resource: Json, include: boolean): Json {
  const shown = structuredClone(resource);
  if (!include) outputItems(shown).forEach(withoutEncrypted);
  return shown;
}

/** `item` without its `encrypted_content` when it is a reasoning item (not asked for: `include`). */
export function withoutEncrypted(item: Json): void {
  if (item.type === "reasoning") delete item.encrypted_content;
}
