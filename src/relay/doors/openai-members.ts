// Doors: SPEC §10 "Doors: the APIs a client speaks" (a member that asks for what the relay can do is
// done). OpenAI's request members that both of its APIs the relay answers share, with one meaning
// (Chat Completions' and Responses' `prompt_cache_key`, `parallel_tool_calls`, an `allowed_tools`
// choice, a json_schema format and `verbosity`), → the relay's config keys, which each provider's
// request builder maps: one mapping for both doors.
import { isRecord } from "../../internal/values.js";
import type { ToolChoice, UniConfig } from "../../providers/request.js";
import { refuseAt } from "./refused.js";

/**
 * OpenAI's json_schema format (`spec`: Chat's `response_format.json_schema`, Responses' `text.format`:
 * its schema, name, description and strict) → the config's `output_format`; `schemaAt` names the schema's
 * member in a refusal.
 */
export function jsonSchemaFormat(spec: unknown, schemaAt: string): NonNullable<UniConfig["output_format"]> {
  if (!isRecord(spec) || !isRecord(spec.schema)) return refuseAt(schemaAt, `${schemaAt} must be a JSON Schema object.`);
  const out: NonNullable<UniConfig["output_format"]> = { type: "json_schema", schema: spec.schema };
  if (typeof spec.name === "string") out.name = spec.name;
  if (typeof spec.description === "string") out.description = spec.description;
  if (typeof spec.strict === "boolean") out.strict = spec.strict;
  return out;
}

/** OpenAI's `verbosity` (`at`: its member) → the config's: `low`/`high` (`medium`, the default, asks nothing). */
export function openaiVerbosity(verbosity: unknown, at: string, config: UniConfig): void {
  if (verbosity === "low" || verbosity === "high") config.verbosity = verbosity;
  else if (verbosity != null && verbosity !== "medium") refuseAt(at, `${at} must be low, medium or high.`);
}

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
