// Routing: SPEC §10 "A row's settings are the operator's" (a row's numbers are ceilings, its costly settings need `allow`).
//
// SPEC §10, "A row's settings are the operator's": what a client's `config` may do to a models row's.
// The relay spends its operator's money, so the row's `config` is not a set of defaults the client
// overrides at will: a number in it is a ceiling the client may lower, never raise; a setting that
// costs more is refused unless the row's `allow` names it. Each key of MMSP's config is decided in
// CONFIG_RULES (one table; the type makes it name every key of UniConfig):
//
//   ceiling  a number: the row's is the most a client may ask (over it, or no number: refused);
//            no number in the row: the provider's default, the client may set it (max_tokens
//            excepted: the relay's DEFAULT_MAX_TOKENS, asked of every provider: usage-estimate.ts)
//   level    thinking_level: at or below the row's in MMSP's order (no level in the row: "none")
//   switch   fast_mode: on (any truthy value, as the builders read it) only when the row has it on
//   union    tools: the client's own function tools are its own (their cost is input tokens, which the
//            quota reserves), the row's added to them; a name in both is a 400 (with `allow.tools`
//            the client's definition replaces the row's)
//   row      the row's value or nothing: thinking_summary (Anthropic turns thinking on for it, even
//            `false`), image_config (Gemini prices an image by its size)
//   free     the client's wins: it spends no more than the messages do (tool_choice, system_prompt,
//            prompt_caching, trace_id, output_format, verbosity, prompt_cache_key,
//            parallel_tool_calls) or every builder refuses it
//            (tts_config outside Gemini's speech models, embedding_config)
//
// A value over a ceiling is a 400 InvalidRequestError naming the setting and the ceiling; a costlier
// setting the row does not offer is a 400 UnsupportedParameterError (its `parameter` the key), as a
// provider's own refusal is. A key of no rule (a typo, a newer MMSP's) is passed on: every builder refuses it by name
// (request.ts `refuseConfig`). The merge makes a null-prototype object of own keys only, so a
// `__proto__` in the client's JSON stays a key (and is refused as one), never a prototype.
import { fail } from "../../internal/describe.js";
import { isRecord, ownValue } from "../../internal/values.js";
import { THINKING_LEVELS, type UniConfig } from "../../providers/request.js";

type Rule = "ceiling" | "level" | "switch" | "union" | "row" | "free";

/** How a client's value of each config key meets the row's (the module's comment says each rule). */
export const CONFIG_RULES = {
  max_tokens: "ceiling",
  temperature: "ceiling",
  top_p: "ceiling",
  thinking_level: "level",
  fast_mode: "switch",
  tools: "union",
  thinking_summary: "row",
  image_config: "row",
  tool_choice: "free",
  system_prompt: "free",
  prompt_caching: "free",
  trace_id: "free",
  tts_config: "free",
  embedding_config: "free",
  output_format: "free",
  verbosity: "free",
  prompt_cache_key: "free",
  parallel_tool_calls: "free",
} as const satisfies Readonly<Record<keyof UniConfig, Rule>>;

type Rules = typeof CONFIG_RULES;
/** The settings a row may let a client raise past its own (numbers never: they are ceilings). */
export type AllowedSetting = { [K in keyof Rules]: Rules[K] extends "ceiling" | "free" ? never : K }[keyof Rules];

/**
 * A row's `allow`: the costlier settings its clients may ask for past the row's own (`fast_mode:
 * true`: the fast tier at premium pricing; `thinking_level`: any level; `tools`: a client's tool
 * may replace the row's tool of its name (a client's own tools need no allowance);
 * `thinking_summary`, `image_config`: any value). Numbers are never raised.
 */
export type RelayAllow = { readonly [K in AllowedSetting]?: boolean };

const ALLOWABLE = Object.keys(CONFIG_RULES).filter((key) => {
  const rule = ownValue(CONFIG_RULES as Readonly<Record<string, Rule>>, key);
  return rule !== "ceiling" && rule !== "free";
});

/** A row's `config` and `allow` checked at the boundary (checkModels): a `TypeError` naming the wrong one at `at`. */
export function checkRowSettings(config: UniConfig | undefined, allow: unknown, at: string): void {
  if (allow !== undefined) {
    if (!isRecord(allow)) fail(TypeError, `${at}.allow`, `an object of settings a client may raise (${ALLOWABLE.join(", ")})`, allow);
    for (const [key, value] of Object.entries(allow as Record<string, unknown>)) {
      if (!ALLOWABLE.includes(key)) {
        fail(
          TypeError,
          `${at}.allow.${key}`,
          `left out: a row allows ${ALLOWABLE.join(", ")} (a number in its config is a ceiling)`,
          value,
        );
      }
      if (typeof value !== "boolean") fail(TypeError, `${at}.allow.${key}`, "true or false", value);
    }
  }
  // (a ceiling the check could not read would be no ceiling at all)
  const own = (key: string): unknown => (config === undefined ? undefined : ownValue(config as Record<string, unknown>, key));
  for (const key of Object.keys(CONFIG_RULES)) {
    const value = own(key);
    if (value === undefined) continue;
    const rule = ownValue(CONFIG_RULES as Readonly<Record<string, Rule>>, key);
    if (rule === "ceiling" && (typeof value !== "number" || !Number.isFinite(value))) {
      fail(TypeError, `${at}.config.${key}`, "a number (a ceiling for the row's clients)", value);
    }
    if (rule === "level" && !(THINKING_LEVELS as readonly unknown[]).includes(value)) {
      fail(TypeError, `${at}.config.${key}`, `one of MMSP's levels (${THINKING_LEVELS.join(", ")})`, value);
    }
    if (rule === "union" && (!Array.isArray(value) || !value.every((tool) => isRecord(tool) && typeof tool.name === "string"))) {
      fail(TypeError, `${at}.config.${key}`, "a list of tools { name, description, parameters? }", value);
    }
  }
}

/** Whether two JSON values are the same (records by their own keys in any order); as deep as `a`, the row's. */
function sameJson(a: unknown, b: unknown): boolean {
  if (Array.isArray(a)) return Array.isArray(b) && a.length === b.length && a.every((v, i) => sameJson(v, b[i]));
  if (isRecord(a)) {
    if (!isRecord(b)) return false;
    const keys = Object.keys(a);
    return keys.length === Object.keys(b).length && keys.every((k) => Object.prototype.hasOwnProperty.call(b, k) && sameJson(a[k], b[k]));
  }
  return Object.is(a, b);
}

/** The 400 of a client's setting past the row's: over a ceiling (InvalidRequestError) or not offered (UnsupportedParameterError). */
function refused(type: "InvalidRequestError" | "UnsupportedParameterError", parameter: string, message: string): Response {
  return Response.json({ error: { type, message, parameter } }, { status: 400 });
}

/** The refusal of the client's `value` of `key` past the row's `own` value, or undefined when it is within. */
function overRow(key: string, rule: Rule, own: unknown, value: unknown): Response | undefined {
  const shown = (v: unknown): string => JSON.stringify(v)?.slice(0, 80) ?? String(v);
  const over = (ceiling: unknown): Response =>
    refused(
      "InvalidRequestError",
      key,
      `config.${key} may be at most ${shown(ceiling)} for this model (its operator's ceiling), not ${shown(value)}.`,
    );
  const notOffered = (what: string): Response =>
    refused(
      "UnsupportedParameterError",
      key,
      `config.${key}${what && ` ${what}`} is not offered for this model (it costs more: the relay's operator decides).`,
    );
  switch (rule) {
    case "ceiling":
      return typeof own !== "number" || (typeof value === "number" && value <= own) ? undefined : over(own);
    case "level": {
      const ceiling = typeof own === "string" ? own : "none";
      const rank = (level: unknown): number => THINKING_LEVELS.indexOf(level as never);
      return rank(value) >= 0 && rank(value) <= rank(ceiling) ? undefined : over(ceiling);
    }
    case "switch":
      return !value || own ? undefined : notOffered(shown(value));
    case "union": {
      // (the client's tools are its own; the row's are added to them, so a name in both would be two tools of one name)
      if (!Array.isArray(value)) {
        return refused("InvalidRequestError", key, `config.${key} must be a list of tools { name, description, parameters? }.`);
      }
      const names = new Set((Array.isArray(own) ? own : []).map((tool) => tool.name));
      const both = value.find((tool) => isRecord(tool) && names.has(tool.name));
      return both === undefined ? undefined : refused(
        "InvalidRequestError",
        key,
        `config.${key}: ${shown((both as { name?: unknown }).name)} is one of this model's own tools (its operator's): rename yours.`,
      );
    }
    case "row":
      return own !== undefined && sameJson(own, value) ? undefined : notOffered(own === undefined ? "" : "other than the model's own");
    case "free":
      return undefined;
  }
}

/**
 * The config a provider is asked with: the row's `config` under the client's `asked`, each of the
 * client's keys within the row's (CONFIG_RULES) unless `allow` names it — or the 400 that refuses
 * the first one past it, naming the setting (and the ceiling). A null-prototype object of own keys.
 */
export function configWithin(config: UniConfig | undefined, allow: RelayAllow | undefined, asked: UniConfig): UniConfig | Response {
  const row = (config ?? {}) as Record<string, unknown>;
  const client = asked as Record<string, unknown>;
  const merged: Record<string, unknown> = Object.create(null);
  for (const key of Object.keys(row)) merged[key] = row[key];
  for (const key of Object.keys(client)) {
    const value = client[key];
    if (value === undefined) continue;
    const rule = ownValue(CONFIG_RULES as Readonly<Record<string, Rule>>, key) ?? "free";
    if (!(allow && ownValue(allow as Record<string, unknown>, key) === true)) {
      const refusal = overRow(key, rule, ownValue(row as Record<string, unknown>, key), value);
      if (refusal !== undefined) return refusal;
    }
    merged[key] = rule === "union" ? unionOf(ownValue(row, key), value) : value;
  }
  return merged as UniConfig;
}

/** The row's tools (those of a name the client's replace left out: `allow.tools`) and then the client's. */
function unionOf(own: unknown, client: unknown): unknown {
  if (!Array.isArray(own) || !Array.isArray(client)) return client;
  const names = new Set(client.map((tool) => (isRecord(tool) ? tool.name : undefined)));
  return [...own.filter((tool) => !names.has(tool.name)), ...client];
}
