/**
 * The conversation as one provider may take it (SPEC §9 "Where each item came from"), before its
 * request builder writes it: the one pass every builder shares, so that a history that crossed
 * providers never sends one provider another's signature.
 *
 * - data only its maker can verify goes to the provider named in `fidelity.provider` (and, where the
 *   provider binds it to a model too, that model): byte for byte, the item unchanged. Fidelity with no
 *   `provider` (an MMSP server's, older captures) is the target's own, as MMSP's clients send it;
 * - another provider's thinking (or thinking the target cannot take without its own proof: Anthropic
 *   wants its signature, Responses its `encrypted_content`) is left out (`foreignThinking: "drop"`,
 *   the default) or sent as plain text (`"text"`); another provider's other items go without its data;
 * - tool-call ids are made valid for the target and unique in the request, and the tool results that
 *   answer them follow the same mapping; the mapping depends on the history only, so a resend sends
 *   the same ids;
 * - an image or file in an assistant turn, which the target's assistant messages have no place for, is
 *   an `UnsupportedParameterError` naming the item and the provider before anything is sent.
 */
import { oneOf } from "../internal/options.js";
import { isRecord } from "../internal/values.js";
import type { DoneItem, UniMessage } from "../schema.js";
import { BOUND_KEYS } from "./provenance.js";
import { unsupported } from "./request.js";

/** What a builder does with another provider's thinking: leave it out, or send its text as plain text. */
export type ForeignThinking = "drop" | "text";

/** The option's rule, checked at the boundary (a factory's options, a `request()`'s, a `models` row's). */
export const FOREIGN_THINKING = /*#__PURE__*/ oneOf(["drop", "text"]);

/** The history options of a provider factory, of a `models` row and of one `request()`. */
export interface HistoryOptions {
  /** Another provider's thinking: left out of the request (`"drop"`, default) or sent as plain text (`"text"`). */
  foreignThinking?: ForeignThinking;
}

/** What a target provider takes (each builder gives its own). */
export interface TargetRules {
  /** The package's name of the provider (`fidelity.provider` of its own items). */
  provider: string;
  /** The fidelity member a thinking item must carry for the target to take it back (none: it takes any). */
  thinkingNeeds?: string;
  /** Its data is bound to the model too (Gemini's signatures: the model family that made them). */
  modelBound?: boolean;
  /** The characters a tool-call id may not hold (replaced by `_`), and its most characters. */
  idInvalid?: RegExp;
  idMax?: number;
  /** Whether ids must be unique in the request (Gemini matches results by name and order: it keeps its own). */
  idUnique: boolean;
  /** Whether an assistant turn may carry images and files (Gemini's model turns do; the others' take text). */
  assistantMedia: boolean;
}

/** The text the Anthropic reader writes for a redacted thinking block (it has no text to send). */
const REDACTED = "_REDACTED_THINKING";

type Fidelity = Record<string, unknown>;

/** A model the stream named and the one asked for, Gemini's `models/` prefix aside. */
const sameModel = (a: string, b: string): boolean => a.replace(/^models\//, "") === b.replace(/^models\//, "");

/** Whether `fidelity` names a maker other than the target (no `provider`: the target's own). */
function isForeign(fidelity: Fidelity | undefined, target: TargetRules, model: string): boolean {
  if (fidelity === undefined || typeof fidelity.provider !== "string") return false;
  if (fidelity.provider !== target.provider) return true;
  return target.modelBound === true && typeof fidelity.model === "string" && !sameModel(fidelity.model, model);
}

/** `fidelity` without what only its maker can verify, nor where it came from (undefined when nothing is left). */
function withoutBound(fidelity: Fidelity): Fidelity | undefined {
  const kept: Fidelity = {};
  for (const key of Object.keys(fidelity)) {
    if (!BOUND_KEYS.includes(key) && key !== "provider" && key !== "model") kept[key] = fidelity[key];
  }
  return Object.keys(kept).length > 0 ? kept : undefined;
}

/** Tool-call ids valid for the target and unique in the request; a result takes its call's. */
class IdMap {
  private readonly used = new Set<string>();
  /** Per id as given: the ids its calls were sent with, not yet answered (oldest first), and the last one. */
  private readonly open = new Map<string, string[]>();
  private readonly last = new Map<string, string>();

  constructor(private readonly target: TargetRules) {}

  private clean(id: string): string {
    const { idInvalid, idMax } = this.target;
    const valid = idInvalid ? id.replace(idInvalid, "_") : id;
    return idMax !== undefined ? valid.slice(0, idMax) : valid;
  }

  /** A call's id (`m`, `i`: where the call is, which a new id is made of, so a resend makes the same). */
  call(id: string, m: number, i: number): string {
    let sent = this.clean(id);
    if (sent === "" || (this.target.idUnique && this.used.has(sent))) {
      const suffix = `_${m}_${i}`;
      const base = this.clean(id || "call");
      sent = base.slice(0, (this.target.idMax ?? Infinity) - suffix.length) + suffix;
      // (a given id may already be this one: then a counter, still a function of the history)
      for (let k = 2; this.used.has(sent); k++) sent = `${sent.slice(0, (this.target.idMax ?? Infinity) - String(k).length - 1)}_${k}`;
    }
    this.used.add(sent);
    const open = this.open.get(id);
    if (open) open.push(sent);
    else this.open.set(id, [sent]);
    this.last.set(id, sent);
    return sent;
  }

  /** A result's id: its call's (the oldest call of that id not yet answered), else the id made valid. */
  result(id: string): string {
    return this.open.get(id)?.shift() ?? this.last.get(id) ?? this.clean(id);
  }
}

/** The messages as `target` takes them (the items that need no change are the same objects). */
export function historyFor(
  client: string,
  target: TargetRules,
  model: string,
  messages: UniMessage[],
  options: HistoryOptions = {},
): UniMessage[] {
  const ids = new IdMap(target);
  return messages.map((message, m) => {
    const items: DoneItem[] = [];
    message.content_items.forEach((item, i) => {
      const fidelity = "fidelity" in item && isRecord(item.fidelity) ? item.fidelity : undefined;
      const foreign = isForeign(fidelity, target, model);
      switch (item.type) {
        case "thinking.done": {
          const needs = target.thinkingNeeds;
          if (!foreign && (needs === undefined || fidelity?.[needs] != null)) return void items.push(item);
          if (options.foreignThinking === "text" && item.thinking !== "" && item.thinking !== REDACTED) {
            items.push({ type: "text.done", text: item.thinking });
          }
          return;
        }
        case "inline_thinking.done":
          if (!foreign) items.push(item); // (another's thought image has no text to send)
          return;
        case "image_url.done":
        case "inline_data.done":
          if (message.role === "assistant" && !target.assistantMedia) {
            const what = item.type === "inline_data.done" ? `${item.type} (${item.mime_type})` : item.type;
            throw unsupported(
              client,
              `messages[${m}].content_items[${i}] (${what})`,
              "its assistant messages carry text and tool calls, not images or files",
            );
          }
          break;
        case "tool_call.done": {
          const id = ids.call(item.tool_call_id, m, i);
          if (id !== item.tool_call_id) item = { ...item, tool_call_id: id };
          break;
        }
        case "tool_result.done": {
          const id = item.tool_call_id ? ids.result(item.tool_call_id) : item.tool_call_id;
          if (id !== item.tool_call_id) item = { ...item, tool_call_id: id };
          break;
        }
      }
      if (foreign && fidelity !== undefined) {
        const { fidelity: _, ...rest } = item as DoneItem & { fidelity?: unknown };
        const kept = withoutBound(fidelity);
        item = (kept ? { ...rest, fidelity: kept } : rest) as DoneItem;
      }
      items.push(item);
    });
    return { ...message, content_items: items };
  });
}
