// The Open Responses door: SPEC §10 "A client's own function tools are its own" — a request's `tools` and `tool_choice`.
//
// A client's `function` tools go to the provider as they are (the row's are added to them:
// routing/ceilings.ts). A `custom` tool (free-form input, as Codex's `apply_patch`) is a client tool
// too: the provider is given a function of that name taking one string, `input`, and its call is
// written back as the `custom_tool_call` the client expects (encode/open-responses.ts reads the
// custom names from the echoed tools). Hosted tools (`web_search`, `file_search`, `code_interpreter`,
// `mcp`, …) run on OpenAI's side with per-use fees outside token quotas: refused naming the tool.
import { isRecord } from "../../../internal/values.js";
import type { ToolSchema, UniConfig } from "../../../providers/request.js";
import { allowedTools } from "../openai-members.js";

// (a refusal naming `param`, which request.ts answers as the spec's 400: doors/refused.ts)
import { refuseAt as refuse, unknownMember } from "../refused.js";
export { refuse };

/** The one argument of a custom tool's function, as the provider is asked to fill it. */
export const CUSTOM_INPUT = "input";

/** A custom tool's function parameters: one string. */
const CUSTOM_PARAMETERS = {
  type: "object",
  properties: { [CUSTOM_INPUT]: { type: "string", description: "The tool's whole input, as free-form text." } },
  required: [CUSTOM_INPUT],
  additionalProperties: false,
};

/** A function tool's members the relay reads or may leave aside (`strict`: every provider is asked for valid arguments anyway). */
const FUNCTION_MEMBERS = new Set(["type", "name", "description", "parameters", "strict"]);

/** `tools` → MMSP's tools (function and custom tools; any other refused naming it). */
export function toolsOf(tools: unknown): ToolSchema[] {
  if (!Array.isArray(tools)) return refuse("tools", "tools must be an array.");
  return tools.map((t, i): ToolSchema => {
    const at = `tools[${i}]`;
    if (!isRecord(t)) return refuse(at, `${at} must be a tool object.`);
    if (t.type !== "function" && t.type !== "custom") {
      const type = typeof t.type === "string" ? t.type.slice(0, 64) : JSON.stringify(t.type)?.slice(0, 64);
      return refuse(
        at,
        `${at}: the hosted tool '${type}' is not offered by this relay (its fees fall outside token quotas); send function or custom tools.`,
      );
    }
    if (typeof t.name !== "string" || t.name === "") return refuse(`${at}.name`, `${at}.name must be a non-empty string.`);
    const description = typeof t.description === "string" ? t.description : "";
    if (t.type === "custom") {
      if (isRecord(t.format) && t.format.type !== "text") {
        // (a grammar: the provider could not be held to it, and the client would get input it cannot parse)
        return refuse(`${at}.format`, `${at}.format: only free-form text input is supported (format: {type: "text"}), not a grammar.`);
      }
      return { name: t.name, description, parameters: CUSTOM_PARAMETERS };
    }
    const unknown = unknownMember(t, FUNCTION_MEMBERS);
    if (unknown !== undefined) {
      return refuse(`${at}.${unknown.slice(0, 64)}`, `${at}.${unknown.slice(0, 64)} is not supported on a function tool.`);
    }
    const tool: ToolSchema = { name: t.name, description };
    if (isRecord(t.parameters)) tool.parameters = t.parameters;
    return tool;
  });
}

/** The header of an answer that says what the relay left out of its request (a row's `hostedTools: "drop"`). */
export const WARNING_HEADER = "x-mmsp-warning";

/**
 * `body` without its hosted tools (any tool not `function` or `custom`), for a row that drops them
 * (routing/models.ts `hostedTools: "drop"`), and the warning that names them (null: none dropped).
 */
export function withoutHostedTools(body: Record<string, unknown>): { body: Record<string, unknown>; warning: string | null } {
  if (!Array.isArray(body.tools)) return { body, warning: null };
  const hosted = (t: unknown): boolean => !isRecord(t) || (t.type !== "function" && t.type !== "custom");
  const dropped = body.tools.flatMap((
    t,
    i,
  ) => (hosted(t) ? [`tools[${i}] (${String(isRecord(t) ? t.type : "?").replace(/[^\w.-]/g, "").slice(0, 40)})`] : []));
  if (dropped.length === 0) return { body, warning: null };
  const warning = `the hosted tools ${dropped.join(", ")} were left out (the models row drops hosted tools)`;
  return { body: { ...body, tools: body.tools.filter((t) => !hosted(t)) }, warning };
}

/** The names of a request's custom tools (their calls are written back as custom_tool_call). */
export function customToolNames(tools: unknown): Set<string> {
  return new Set(Array.isArray(tools) ? tools.filter((t) => isRecord(t) && t.type === "custom").map((t) => t.name as string) : []);
}

/** `tool_choice` → MMSP's. */
export function toolChoiceOf(choice: unknown): UniConfig["tool_choice"] {
  if (choice === "auto" || choice === "required" || choice === "none") return choice;
  const named = (t: unknown): string | undefined =>
    isRecord(t) && (t.type === "function" || t.type === "custom") && typeof t.name === "string" ? t.name : undefined;
  if (named(choice) !== undefined) return [named(choice)!];
  if (isRecord(choice) && choice.type === "allowed_tools" && Array.isArray(choice.tools)) {
    const names = choice.tools.map(named);
    if (choice.mode === "none") return "none";
    const allowed = names.length > 0 && names.every((n): n is string => n !== undefined) ? allowedTools(choice.mode, names) : undefined;
    if (allowed !== undefined) return allowed;
  }
  return refuse("tool_choice", 'tool_choice must be auto, required, none, {type: "function", name} or allowed function tools.');
}
