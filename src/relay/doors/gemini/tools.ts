// The Gemini door: SPEC §10 "A client's own function tools are its own" — a request's `tools` and `toolConfig`.
//
// A client's `functionDeclarations` go to the provider as MMSP's tools (Gemini's OpenAPI types as JSON
// Schema's); Google's own tools (Search, code execution, URL context, Maps…) run on Google's side at
// fees outside token quotas: refused by name. Inside a declaration and the tool config each member is
// classified from Gemini's API reference (FunctionDeclaration, Tool, ToolConfig, FunctionCallingConfig):
// one that asks for nothing is accepted, one the relay can do is done, any other refused by name — but
// in a body passed through to Gemini as written (routing/pass-through.ts), where Gemini judges it.
import { isRecord } from "../../../internal/values.js";
import type { ToolSchema, UniConfig } from "../../../providers/request.js";
import { refuse } from "./refused.js";
import { unknownMember } from "../refused.js";

type Json = Record<string, unknown>;

const given = (v: unknown): boolean => v !== undefined && v !== null;

/**
 * A FunctionDeclaration's members (Gemini's API reference) the relay reads or accepts: its output
 * schema (`response`, `responseJsonSchema`) describes what the client's function returns, for the
 * model to read; it asks nothing of the relay (the function runs on the client), so it is accepted —
 * the tool's `output_schema` (as JSON Schema), which the Gemini builder sends as `responseJsonSchema`
 * and the other providers' leave out (they have no such member).
 */
const DECLARATION_MEMBERS = new Set([
  "name",
  "description",
  "parameters",
  "parametersJsonSchema",
  "response",
  "responseJsonSchema",
  "behavior",
]);

/** A member of `at` the relay does not know: refused by name, unless the body is passed through to Gemini as written (which judges it). */
function unknownMembers(object: Json, known: ReadonlySet<string>, at: string, passed: boolean, what: string): void {
  const key = passed ? undefined : unknownMember(object, known);
  if (key !== undefined) refuse(`${at}.${key.slice(0, 64)} is not supported by this relay${what}.`);
}

/**
 * `tools`: each Tool's `functionDeclarations`; any other tool (Google Search, code execution, URL
 * context, Maps, file search, computer use…: Google runs them, at fees outside token quotas) refused
 * by name, passed through or not; a declaration's unknown member refused by name (`passed`: it goes along).
 */
export function toolsOf(tools: unknown, passed: boolean): ToolSchema[] {
  if (!Array.isArray(tools)) return refuse("tools must be an array of Tool objects.");
  const out: ToolSchema[] = [];
  tools.forEach((tool, i) => {
    if (!isRecord(tool)) return refuse(`tools[${i}] must be a Tool object.`);
    for (const key of Object.keys(tool)) {
      if (key === "functionDeclarations" || !given(tool[key])) continue;
      refuse(
        `tools[${i}].${key.slice(0, 64)} is not supported by this relay: only functionDeclarations (the client's own functions; ` +
          "Google's own tools are billed outside token quotas).",
      );
    }
    const declared = tool.functionDeclarations ?? [];
    if (!Array.isArray(declared)) return refuse(`tools[${i}].functionDeclarations must be an array.`);
    declared.forEach((f, j) => {
      const at = `tools[${i}].functionDeclarations[${j}]`;
      if (!isRecord(f) || typeof f.name !== "string" || f.name === "") return refuse(`${at}.name must be a non-empty string.`);
      unknownMembers(f, DECLARATION_MEMBERS, at, passed, " (a FunctionDeclaration has name, description, parameters, response, behavior)");
      if (given(f.behavior) && f.behavior !== "BLOCKING") refuse(`${at}.behavior: only BLOCKING functions are supported.`);
      for (const key of ["response", "responseJsonSchema"]) {
        if (given(f[key]) && !isRecord(f[key])) refuse(`${at}.${key} must be a schema object.`);
      }
      const parameters = f.parametersJsonSchema ?? f.parameters;
      if (given(parameters) && !isRecord(parameters)) refuse(`${at}.parameters must be a schema object.`);
      const output = f.responseJsonSchema ?? f.response;
      out.push({
        name: f.name,
        description: typeof f.description === "string" ? f.description : "",
        ...(isRecord(parameters) ? { parameters: jsonSchemaOf(parameters) } : {}),
        ...(isRecord(output) ? { output_schema: jsonSchemaOf(output) } : {}),
      });
    });
  });
  return out;
}

/** A Gemini `Schema` (OpenAPI's subset, types in capitals: `OBJECT`) as JSON Schema (lower case); a JSON Schema is itself. */
export function jsonSchemaOf(schema: unknown): Json {
  const walk = (v: unknown): unknown => {
    if (Array.isArray(v)) return v.map(walk);
    if (!isRecord(v)) return v;
    // (fromEntries defines own members: a `__proto__` key of the client's schema stays a key, never a prototype)
    return Object.fromEntries(
      Object.keys(v).map((key) => {
        const value = v[key];
        return [
          key,
          key === "type" && typeof value === "string"
            ? value.toLowerCase()
            : key === "properties" && isRecord(value)
            ? Object.fromEntries(Object.keys(value).map((k) => [k, walk(value[k])]))
            : walk(value),
        ];
      }),
    );
  };
  return walk(schema) as Json;
}

/** A FunctionCallingConfig's members (Gemini's API reference) the relay reads. */
const CALLING_MEMBERS = new Set(["mode", "allowedFunctionNames", "streamFunctionCallArguments"]);

/**
 * `toolConfig.functionCallingConfig` → `tool_choice` (AUTO, ANY with or without names, NONE);
 * `VALIDATED` (calls checked by constrained decoding: no other provider can be held to it) only
 * passed through to Gemini as written, as AUTO for the relay; `allowedFunctionNames` only with ANY (or
 * VALIDATED), as the reference says; `streamFunctionCallArguments` (Vertex AI's partial arguments) only
 * false. `includeServerSideToolInvocations` asks nothing (the relay offers no server-side tool);
 * `retrievalConfig` is refused; any other member refused by name (`passed`: it goes along).
 */
export function toolConfigOf(toolConfig: unknown, config: UniConfig, passed: boolean): void {
  if (!isRecord(toolConfig)) return refuse("toolConfig must be an object.");
  if (given(toolConfig.retrievalConfig)) refuse("toolConfig.retrievalConfig is not supported (this relay offers no retrieval tools).");
  const invocations = toolConfig.includeServerSideToolInvocations;
  if (given(invocations) && typeof invocations !== "boolean") refuse("toolConfig.includeServerSideToolInvocations must be a boolean.");
  unknownMembers(
    toolConfig,
    new Set(["functionCallingConfig", "retrievalConfig", "includeServerSideToolInvocations"]),
    "toolConfig",
    passed,
    "",
  );
  const calling = toolConfig.functionCallingConfig;
  if (!given(calling)) return;
  const at = "toolConfig.functionCallingConfig";
  if (!isRecord(calling)) return refuse(`${at} must be an object.`);
  unknownMembers(calling, CALLING_MEMBERS, at, passed, " (mode, allowedFunctionNames)");
  if (given(calling.streamFunctionCallArguments) && calling.streamFunctionCallArguments !== false) {
    refuse(`${at}.streamFunctionCallArguments is not supported (a function call's arguments come whole).`);
  }
  const names = calling.allowedFunctionNames;
  if (given(names) && (!Array.isArray(names) || !names.every((n) => typeof n === "string"))) {
    refuse(`${at}.allowedFunctionNames must be an array of names.`);
  }
  const mode = calling.mode ?? "AUTO";
  const named = Array.isArray(names) && names.length > 0;
  if (mode === "VALIDATED" && !passed) {
    refuse(`${at}.mode VALIDATED is not supported (only Gemini checks calls by constrained decoding): AUTO, ANY or NONE.`);
  }
  if (named && mode !== "ANY" && mode !== "VALIDATED") {
    refuse(`${at}.allowedFunctionNames is only read with mode ANY (the model then calls one of them).`);
  }
  if (mode === "AUTO" || mode === "MODE_UNSPECIFIED" || mode === "VALIDATED") config.tool_choice = "auto";
  else if (mode === "NONE") config.tool_choice = "none";
  else if (mode === "ANY") config.tool_choice = named ? { mode: "required", tools: names as string[] } : "required";
  else refuse(`${at}.mode ${String(mode).slice(0, 32)} is not supported (AUTO, ANY or NONE).`);
}
