// The Gemini door: SPEC §10 "Doors: the APIs a client speaks" (Gemini's `contents` onto MMSP's messages).
//
// A Gemini conversation (`contents`: turns of role `user` or `model`, each a list of parts) → MMSP's
// messages, item for item: text, thought text (`thought: true`), `inlineData` and `fileData` images,
// `functionCall` (its `thoughtSignature` kept as the item's signature, the door's own API's provider's:
// SPEC §9), `functionResponse`. Gemini's calls often come without ids (the Gemini API pairs a
// response with its call by name and order): such a call gets the id the gemini reader makes for one
// (its name, then `<name>_2`…), which the gemini builder sends back without an id again, and each
// id-less response takes the id of the call of its name it answers, in order. A part the relay has
// no item for (executable code, a video's metadata, a non-image file…) is refused by name.
import { isRecord } from "../../../internal/values.js";
import type { DoneItem, UniMessage } from "../../../schema.js";
import { refuse } from "./refused.js";
import { isSealed } from "../seal.js";
import { sealedFidelity } from "../sealing.js";

type Json = Record<string, unknown>;

/** What a signed part's item carries (no `model`: the client does not say which model signed it). */
function signed(part: Json, at: string): { fidelity?: Json } {
  const signature = part.thoughtSignature;
  if (signature === undefined || signature === null) return {};
  if (typeof signature !== "string") return refuse(`${at}.thoughtSignature must be a string.`);
  if (signature === "") return {};
  // (one the relay sealed: another provider's value, opened after the translation — doors/sealing.ts)
  return { fidelity: isSealed(signature) ? sealedFidelity(signature, `${at}.thoughtSignature`) : { signature, provider: "gemini" } };
}

/** An image given inline or by URI, as MMSP's `image_url.done` (a data URL for inline bytes). */
function image(part: Json, at: string): DoneItem {
  if (isRecord(part.inlineData)) {
    const { mimeType, data } = part.inlineData;
    if (typeof mimeType !== "string" || typeof data !== "string") refuse(`${at}.inlineData needs mimeType and data (base64).`);
    if (!(mimeType as string).startsWith("image/")) {
      refuse(`${at}.inlineData: only images are supported (not ${(mimeType as string).slice(0, 64)}).`);
    }
    return { type: "image_url.done", image_url: `data:${mimeType};base64,${data}` };
  }
  const file = part.fileData as Json;
  if (typeof file.fileUri !== "string" || !/^https?:\/\//.test(file.fileUri)) {
    refuse(`${at}.fileData.fileUri must be an http(s) URL of an image.`);
  }
  if (typeof file.mimeType === "string" && !file.mimeType.startsWith("image/")) {
    refuse(`${at}.fileData: only images are supported (not ${file.mimeType.slice(0, 64)}).`);
  }
  return { type: "image_url.done", image_url: file.fileUri as string };
}

/** The text a function response gives back: its `result` or `output` when that is a string, else the whole response as JSON. */
function resultText(response: unknown): string {
  if (!isRecord(response)) return JSON.stringify(response ?? {});
  const keys = Object.keys(response);
  for (const key of ["result", "output"]) {
    if (keys.length === 1 && typeof response[key] === "string") return response[key] as string;
  }
  return JSON.stringify(response);
}

/** The ids of one model turn's calls, for the responses of the next user turn that name no id. */
class CallIds {
  private readonly made = new Set<string>();
  /** Per function name, the ids of its calls not yet answered, in order. */
  private readonly open = new Map<string, string[]>();

  /** The id of a call (its own, or one made from its name as the gemini reader makes it). */
  call(name: string, id: unknown): string {
    let made = typeof id === "string" && id !== "" ? id : name;
    if (made === name) { for (let k = 2; this.made.has(made); k++) made = `${name}_${k}`; }
    this.made.add(made);
    const open = this.open.get(name) ?? [];
    open.push(made);
    this.open.set(name, open);
    return made;
  }

  /** The id a response answers: its own, else that of the oldest unanswered call of its name. */
  answer(name: string, id: unknown, at: string): string {
    const open = this.open.get(name) ?? [];
    if (typeof id === "string" && id !== "") {
      const k = open.indexOf(id);
      if (k >= 0) open.splice(k, 1);
      return id;
    }
    const oldest = open.shift();
    return oldest ?? refuse(`${at}.functionResponse answers no functionCall of '${name.slice(0, 64)}' in the model turn before it.`);
  }
}

/** One part → its item (or nothing, for an empty part). */
function itemOf(part: unknown, at: string, role: "user" | "assistant", ids: CallIds): DoneItem | undefined {
  if (!isRecord(part)) return refuse(`${at} must be a part object.`);
  if (typeof part.text === "string") {
    return part.thought === true
      ? { type: "thinking.done", thinking: part.text, ...signed(part, at) }
      : { type: "text.done", text: part.text, ...signed(part, at) };
  }
  if (isRecord(part.functionCall)) {
    const { name, args, id } = part.functionCall;
    if (role !== "assistant") refuse(`${at}.functionCall: function calls belong to model turns.`);
    if (typeof name !== "string" || name === "") refuse(`${at}.functionCall.name must be a non-empty string.`);
    if (args !== undefined && args !== null && !isRecord(args)) refuse(`${at}.functionCall.args must be an object.`);
    const fidelity = signed(part, at);
    return {
      type: "tool_call.done",
      name: name as string,
      arguments: (args ?? {}) as Json,
      tool_call_id: ids.call(name as string, id),
      ...fidelity,
    };
  }
  if (isRecord(part.functionResponse)) {
    const { name, response, id } = part.functionResponse;
    if (typeof name !== "string" || name === "") refuse(`${at}.functionResponse.name must be a non-empty string.`);
    return { type: "tool_result.done", text: resultText(response), tool_call_id: ids.answer(name as string, id, at) };
  }
  if (isRecord(part.inlineData) || isRecord(part.fileData)) {
    if (part.thought === true) refuse(`${at}: thought images are not supported in a request.`);
    return image(part, at);
  }
  const kind = Object.keys(part).find((k) => k !== "thoughtSignature" && k !== "thought" && part[k] !== undefined && part[k] !== null);
  // (a part with only a signature: Gemini's empty signed part, whose signature no item can carry alone)
  if (kind === undefined) return undefined;
  return refuse(
    `${at}.${
      kind.slice(0, 64)
    } is not supported by this relay (it serves text, thought, inlineData and fileData images, functionCall, functionResponse).`,
  );
}

/** `contents` → MMSP messages (a turn without a role is the user's, as Gemini reads a one-turn request). */
export function messagesOf(contents: unknown): UniMessage[] {
  if (contents === undefined || contents === null) return [];
  if (!Array.isArray(contents)) return refuse("contents must be an array of turns.");
  let ids = new CallIds();
  const messages: UniMessage[] = [];
  contents.forEach((turn, i) => {
    const at = `contents[${i}]`;
    if (!isRecord(turn)) return refuse(`${at} must be a Content object { role, parts }.`);
    const role = turn.role === "model" ? "assistant" : turn.role === "user" || turn.role == null ? "user" : undefined;
    if (role === undefined) return refuse(`${at}.role must be user or model.`);
    if (!Array.isArray(turn.parts)) return refuse(`${at}.parts must be an array of parts.`);
    if (role === "assistant") ids = new CallIds();
    const items = turn.parts.map((p, j) => itemOf(p, `${at}.parts[${j}]`, role, ids)).filter((x): x is DoneItem => x !== undefined);
    const last = messages.at(-1);
    if (last && last.role === role) last.content_items.push(...items);
    else messages.push({ role, content_items: items });
  });
  return messages;
}

/** `systemInstruction` (a Content of text parts, or a string) → the system prompt. */
export function systemOf(instruction: unknown): string | undefined {
  if (instruction === undefined || instruction === null) return undefined;
  if (typeof instruction === "string") return instruction;
  if (!isRecord(instruction) || !Array.isArray(instruction.parts)) return refuse("systemInstruction must be a Content object { parts }.");
  return instruction.parts.map((p, j) => {
    if (isRecord(p) && typeof p.text === "string") return p.text;
    return refuse(`systemInstruction.parts[${j}]: only text parts are supported.`);
  }).join("\n\n");
}
