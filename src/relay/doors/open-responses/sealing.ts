// The Open Responses door's answer state: SPEC §9 "Where each item came from" (a thinking's provider
// data sealed) and §10 "Stored responses" (the response kept before its terminal event), run by the
// door's encoding (encoding.ts) where the stream's events are: in the stream's object, or on the
// stateless path.
//
// Before the encoder (the encoding's sealing step): each thinking's provider data sealed (seal.ts, under
// the key of the env where the answer is written) or left out, so no provider's value leaves the relay
// as it is; a tool call's signature (a Gemini 3 call's: a `function_call` item has no place for it)
// sealed with the call's id as the `encrypted_content` of an empty reasoning item just before the call
// (doors/sealing.ts: `toTheirCalls` gives it back to the call). After it (the encoder core's `finish` hook): each resource says `store` and `previous_response_id`
// as the request asked (they ride in the stream's meta: a replay says the same), `encrypted_content`
// only where `include` asked for it; and (the encoding's `settle`) the terminal event's resource kept,
// sealed values and all, before the client has that event, so a reference made right after it finds
// the response. A response that cannot be kept is still answered (the log says why a reference to it
// will be a 404).
import type { ContentItem, StreamDoneItem, UniEvent } from "../../../schema.js";
import { isRecord } from "../../../internal/values.js";
import type { OpenResponsesEvent } from "../../../encode.js";
import { FramedEvent, openResponsesResourceJson, openResponsesShownReasoning } from "../../../encode/open-responses.js";
import { RelayConfigError } from "../../admission/principal.js";
import type { EncodingContext, SealStep } from "../../stream/encoding.js";
import { boundPart, seal, type Sealed, type SealEnv } from "../seal.js";
import { OWN_PROVIDER, withoutBound } from "./state.js";

type Json = Record<string, unknown>;

/** What an answer's state is (the stream's meta): `include`'s ask, the response kept for a principal, the previous response. */
export interface AnswerState {
  /** `include` asked for `reasoning.encrypted_content`. */
  include: boolean;
  /** The resource says `store: true` (the response is kept). */
  stored: boolean;
  /** The `previous_response_id` asked for, or null. */
  previous: string | null;
  /** The principal the response is kept for (its input was begun by the door: state.ts), or null. */
  keep: string | null;
}

const TERMINAL = new Set([
  "response.completed",
  "response.incomplete",
  "response.failed",
]);

/**
 * The sealing step of one answer: each thinking's provider data sealed (a `thinking.done` then carries
 * only `encrypted_content`, the sealed value, which the encoder writes) or left out; a tool call's
 * sealed with its id in a `carrier` written once before the call (or left out with the thinking's). Included: sealed
 * (the key was checked before: stateOf); kept: sealed for the kept response when the relay has a seal
 * key, else left out (a kept reasoning item then goes back as text only: RELAY_SEAL_KEY's
 * documentation); neither: left out. An event with no provider data goes on as it is, at once.
 */
export function sealStep(state: AnswerState, env: SealEnv): SealStep {
  const mode = state.include ? "include" : state.keep !== null ? "keep" : "none";
  let sealIt = mode !== "none";
  const fidelityOf = (item: object): unknown => ("fidelity" in item ? item.fidelity : undefined);
  const sealOf = async (bound: Sealed): Promise<string | undefined> => {
    if (!sealIt) return undefined;
    try {
      return await seal(bound, env);
    } catch (e) {
      if (mode !== "keep" || !(e instanceof RelayConfigError)) throw e;
      sealIt = false;
      return undefined;
    }
  };
  const carried = new Set<string>(); // (the calls whose carrier was written: once per call)
  const sealed = async (event: UniEvent): Promise<UniEvent> => {
    const items: ContentItem[] = [];
    for (const item of event.content_items) {
      const bound = boundPart(fidelityOf(item), OWN_PROVIDER);
      if (bound === undefined) {
        items.push(item);
        continue;
      }
      const rest = withoutBound(fidelityOf(item) as Json);
      if (item.type === "thinking.done") {
        const encrypted = await sealOf(bound);
        if (encrypted !== undefined) rest.encrypted_content = encrypted;
      } else if ((item.type === "tool_call.delta" || item.type === "tool_call.done") && !carried.has(item.tool_call_id)) {
        // (a call's signature: a reasoning item of its own just before the call, sealed with the call's id)
        carried.add(item.tool_call_id);
        const encrypted = await sealOf({ ...bound, call: item.tool_call_id });
        if (encrypted !== undefined) items.push(...carrier(encrypted));
      }
      const { fidelity: _, ...plain } = item as StreamDoneItem & { fidelity?: unknown };
      items.push((Object.keys(rest).length > 0 ? { ...plain, fidelity: rest } : plain) as ContentItem);
    }
    return { ...event, content_items: items } as UniEvent;
  };
  return (event) => (holdsBound(event.content_items) ? sealed(event) : event);
}

/** Whether an event's items hold provider data to seal (most hold no `fidelity`: no call made for them). */
function holdsBound(items: readonly ContentItem[]): boolean {
  for (let i = 0; i < items.length; i++) {
    const item = items[i]!;
    if ("fidelity" in item && boundPart(item.fidelity) !== undefined) return true;
  }
  return false;
}

/**
 * The items that carry a call's signature (sealed with the call's id) just before the call: an empty
 * reasoning item with the value as its `encrypted_content` (Responses' one place for opaque data a
 * client sends back; shown only where `include` asks, kept with a stored response always).
 */
const carrier = (encrypted: string): ContentItem[] => [
  { type: "thinking.delta", thinking: "" },
  { type: "thinking.done", thinking: "", fidelity: { encrypted_content: encrypted } },
];

/** The resources to keep (their JSON, as they were when finished), by the terminal event that carries them (taken by `keepTerminal`). */
const toKeep = new WeakMap<object, { resource: string; principal: string }>();

/**
 * What finishes each event of an answer as the request asked (the encoder core's `finish` hook: every
 * event but the deltas, which carry no response nor item): `store`, `previous_response_id`, and
 * `encrypted_content` only where `include` asked; a terminal event's resource set aside to keep.
 */
export function finisher(state: AnswerState): (event: OpenResponsesEvent) => void {
  return (event) => {
    const e = event as OpenResponsesEvent & Json;
    if (isRecord(e.response)) {
      e.response.store = state.stored;
      e.response.previous_response_id = state.previous;
      if (state.keep !== null && TERMINAL.has(e.type)) {
        // (its JSON now, before `include` changes what is shown: a copy no later change reaches; its
        // items' JSON made once by the encoder, not written again)
        toKeep.set(e, { resource: openResponsesResourceJson(e.response), principal: state.keep });
      }
      if (!state.include && Array.isArray(e.response.output)) e.response.output = e.response.output.map(shownItem);
    }
    if (!state.include && isRecord(e.item)) e.item = shownItem(e.item);
  };
}

/**
 * An output item as shown where `include` did not ask for `encrypted_content`: a reasoning item that
 * has one, a copy without it (the encoder core's items are shared by its events: never changed), else itself.
 */
function shownItem(item: unknown): unknown {
  return isRecord(item) && item.type === "reasoning" ? openResponsesShownReasoning(item) : item;
}

/** Keeps a terminal event's resource (set aside by `finisher`) where the relay keeps responses, before it is written. */
export function keepTerminal(
  event: OpenResponsesEvent,
  context: EncodingContext,
): Promise<void> | undefined {
  if (event instanceof FramedEvent) return undefined; // (a delta: never terminal)
  const kept = toKeep.get(event);
  if (kept === undefined || !context.keeper) return undefined; // (nothing to keep: no wait)
  toKeep.delete(event);
  const id = `resp_${context.id}`;
  // (a response that cannot be kept is still answered: the log says why a reference to it will be a 404)
  return context.keeper.finish(kept.principal, id, kept.resource).catch((e) => console.error(`relay: response ${id} could not be kept`, e));
}
