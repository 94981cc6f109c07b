// The Chat Completions door: SPEC §10 "Doors: the APIs a client speaks" (its `messages` onto MMSP's).
//
// `messages` → MMSP messages: system and developer text is the system prompt; user turns are text and
// images; assistant turns their reasoning carried back, text and tool calls; tool turns tool results.
// Reasoning a client carries back (`reasoning_content` / `reasoning`) is thinking; unsealed
// `reasoning_details` entries are the Chat API's own provider's (SPEC §9: an unsealed value is the
// door's API's provider's), so after a fallback no other provider is sent them; a sealed entry (the
// relay's: another provider's value, encoding.ts) is its maker's again once opened (doors/sealing.ts),
// on the reasoning text it came with, or on the tool call its `id` names. What has no MMSP meaning is refused
// by name (`Refused`, which request.ts turns into OpenAI's 400).
import { isRecord } from "../../../internal/values.js";
import { parseJsonText } from "../../../internal/json.js";
import { isSealed } from "../seal.js";
import { sealedFidelity } from "../sealing.js";
import type { DoneItem, UniMessage } from "../../../schema.js";

type Json = Record<string, unknown>;

// (a member the relay cannot serve: its name, the error's `param`, and what to do — doors/refused.ts)
import { refuseAt as refuse } from "../refused.js";
export { refuse };

/** `messages` → MMSP messages (consecutive turns of one role join one message); system and developer text goes to `system`. */
export function messagesOf(input: unknown, system: string[]): UniMessage[] {
  if (!Array.isArray(input) || input.length === 0) return refuse("messages", "messages must be a non-empty array.");
  const messages: UniMessage[] = [];
  const push = (role: "user" | "assistant", items: DoneItem[]): void => {
    if (items.length === 0) return;
    const last = messages.at(-1);
    if (last && last.role === role) last.content_items.push(...items);
    else messages.push({ role, content_items: items });
  };
  input.forEach((m, i) => {
    const at = `messages[${i}]`;
    if (!isRecord(m)) return refuse(at, `${at} must be a message object.`);
    if (m.role === "system" || m.role === "developer") return system.push(textOf(m.content, at));
    if (m.role === "user") return push("user", userContent(m.content, at));
    if (m.role === "assistant") return push("assistant", assistantItems(m, at));
    if (m.role === "tool") {
      if (typeof m.tool_call_id !== "string" || m.tool_call_id === "") {
        return refuse(`${at}.tool_call_id`, `${at}.tool_call_id must be a string.`);
      }
      return push("user", [{ type: "tool_result.done", text: textOf(m.content, at), tool_call_id: m.tool_call_id }]);
    }
    if (m.role === "function") {
      return refuse(`${at}.role`, `${at}: function messages (the deprecated functions API) are not supported: use tools.`);
    }
    return refuse(`${at}.role`, `${at}.role must be system, developer, user, assistant or tool.`);
  });
  return messages;
}

/** An assistant turn: its reasoning (carried back), its text, its tool calls, in that order. */
function assistantItems(m: Json, at: string): DoneItem[] {
  const items: DoneItem[] = [];
  for (const field of ["reasoning_content", "reasoning"] as const) {
    const text = m[field];
    if (text == null) continue;
    if (typeof text !== "string") return refuse(`${at}.${field}`, `${at}.${field} must be a string.`);
    if (text) items.push({ type: "thinking.done", thinking: text, fidelity: { reasoning_field: field } });
    break; // (a client keeping both writes the same text twice)
  }
  const sealed: { id?: string; fidelity: Json }[] = [];
  if (m.reasoning_details != null) {
    if (!Array.isArray(m.reasoning_details) || !m.reasoning_details.every(isRecord)) {
      return refuse(`${at}.reasoning_details`, `${at}.reasoning_details must be an array of objects.`);
    }
    const own: Json[] = [];
    m.reasoning_details.forEach((entry: Json, k) => {
      // (an entry the relay sealed: another provider's value, opened after the translation — doors/sealing.ts)
      const member = typeof entry.data === "string" && isSealed(entry.data)
        ? "data"
        : typeof entry.signature === "string" && isSealed(entry.signature)
        ? "signature"
        : undefined;
      if (member === undefined) return own.push(entry);
      const id = typeof entry.id === "string" && entry.id !== "" ? entry.id : undefined;
      sealed.push({ id, fidelity: sealedFidelity(entry[member] as string, `${at}.reasoning_details[${k}].${member}`) });
    });
    if (own.length > 0) items.push({ type: "thinking.done", thinking: "", fidelity: { reasoning_details: own, provider: "openai-chat" } });
    // (a thinking's sealed proof goes on its reasoning text, as its maker wrote them together)
    const reasoning = items.find((item) => item.type === "thinking.done" && isRecord(item.fidelity) && "reasoning_field" in item.fidelity);
    const first = sealed.findIndex((s) => s.id === undefined);
    if (reasoning && first >= 0) (reasoning as { fidelity?: Json }).fidelity = sealed.splice(first, 1)[0]!.fidelity;
    for (const s of sealed.filter((s) => s.id === undefined)) items.push({ type: "thinking.done", thinking: "", fidelity: s.fidelity });
  }
  if (m.content != null) {
    const text = textOf(m.content, at, true);
    if (text) items.push({ type: "text.done", text });
  }
  if (m.function_call != null) {
    refuse(`${at}.function_call`, `${at}.function_call (the deprecated functions API) is not supported: use tool_calls.`);
  }
  if (m.audio != null) refuse(`${at}.audio`, `${at}.audio is not supported.`);
  if (m.tool_calls != null) {
    if (!Array.isArray(m.tool_calls)) return refuse(`${at}.tool_calls`, `${at}.tool_calls must be an array.`);
    m.tool_calls.forEach((c, j) => {
      const call = toolCallOf(c, `${at}.tool_calls[${j}]`) as DoneItem & { tool_call_id: string; fidelity?: Json };
      const proof = sealed.find((s) => s.id === call.tool_call_id); // (a call's sealed proof, e.g. Gemini's thought signature)
      items.push(proof ? { ...call, fidelity: proof.fidelity } : call);
    });
  }
  return items;
}

function toolCallOf(c: unknown, at: string): DoneItem {
  if (!isRecord(c) || c.type !== "function" || typeof c.id !== "string" || !isRecord(c.function)) {
    return refuse(at, `${at}: a tool call needs id, type: "function" and function {name, arguments}.`);
  }
  const { name, arguments: text } = c.function;
  if (typeof name !== "string" || typeof text !== "string") {
    return refuse(`${at}.function`, `${at}.function needs name and arguments (a JSON string).`);
  }
  let args: unknown;
  try {
    args = text === "" ? {} : parseJsonText(text);
  } catch {
    args = undefined;
  }
  if (!isRecord(args)) return refuse(`${at}.function.arguments`, `${at}.function.arguments must be a JSON object's text.`);
  return { type: "tool_call.done", name, arguments: args, tool_call_id: c.id };
}

/** A message's content as text: a string, or its text parts joined (a refusal part too in an assistant turn). */
function textOf(content: unknown, at: string, assistant = false): string {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return refuse(`${at}.content`, `${at}.content must be a string or an array of parts.`);
  return content.map((p, j) => {
    if (isRecord(p) && p.type === "text" && typeof p.text === "string") return p.text;
    if (assistant && isRecord(p) && p.type === "refusal" && typeof p.refusal === "string") return p.refusal;
    return refuse(`${at}.content[${j}]`, `${at}.content[${j}]: only text parts are supported here.`);
  }).join("");
}

/** A user turn's content: text and images (`image_url` parts: an http(s) or data URL). */
function userContent(content: unknown, at: string): DoneItem[] {
  if (typeof content === "string") return [{ type: "text.done", text: content }];
  if (!Array.isArray(content)) return refuse(`${at}.content`, `${at}.content must be a string or an array of parts.`);
  return content.map((p, j): DoneItem => {
    const where = `${at}.content[${j}]`;
    if (isRecord(p) && p.type === "text" && typeof p.text === "string") return { type: "text.done", text: p.text };
    if (isRecord(p) && p.type === "image_url" && isRecord(p.image_url) && typeof p.image_url.url === "string") {
      return { type: "image_url.done", image_url: p.image_url.url };
    }
    return refuse(where, `${where}: only text and image_url parts are supported (not input_audio or file).`);
  });
}
