// Doors: SPEC §10 "Doors: the APIs a client speaks" (a member that asks for what the relay can do is
// done). OpenAI's request members that both of its APIs the relay answers share, with one meaning
// (Chat Completions' and Responses' `prompt_cache_key`, `parallel_tool_calls` and an `allowed_tools`
// choice), → the relay's config keys, which each provider's request builder maps: one mapping for both doors.
import type { ToolChoice, UniConfig } from "../../providers/request.js";

/**
 * An `allowed_tools` choice (Chat's `allowed_tools: {mode, tools}`, Responses' `{mode, tools}`) → MMSP's:
 * the names with the mode, always explicit (a plain list reads differently per MMSP client): `required`
 * (one of them is called), `auto` (Responses' default when no mode is written, as the resource echoes it:
 * the model may also answer without a call) — the builders offer only these tools, in the provider's own
 * allowed list where it has one.
 */
export function allowedTools(mode: unknown, names: string[]): ToolChoice | undefined {
  if (mode === "required") return { mode: "required", tools: names };
  if (mode === "auto" || mode === undefined) return { mode: "auto", tools: names };
  return undefined;
}

/** `prompt_cache_key` and `parallel_tool_calls` of an OpenAI request → `config`; a wrong type's refusal `[member, message]`, else undefined. */
export function openaiHints(body: Record<string, unknown>, config: UniConfig): [string, string] | undefined {
  const key = body.prompt_cache_key;
  if (key !== undefined && key !== null) {
    if (typeof key !== "string") return ["prompt_cache_key", "prompt_cache_key must be a string."];
    config.prompt_cache_key = key;
  }
  const parallel = body.parallel_tool_calls;
  if (parallel !== undefined && parallel !== null) {
    if (typeof parallel !== "boolean") return ["parallel_tool_calls", "parallel_tool_calls must be a boolean."];
    // (true is every provider's default: only false asks something)
    if (parallel === false) config.parallel_tool_calls = false;
  }
  return undefined;
}
