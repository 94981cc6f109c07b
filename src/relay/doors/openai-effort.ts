// Doors: SPEC §10 (a client's thinking level). OpenAI's reasoning effort, as both of its APIs the relay
// answers write it (Chat Completions' `reasoning_effort`, Responses' `reasoning.effort`), → the relay's
// thinking level: one table for both doors.
import type { ThinkingLevel } from "../../providers/request.js";

/** An OpenAI reasoning effort → the thinking level asked (`minimal` has no level of its own: `low`). */
export const OPENAI_EFFORT: Readonly<Record<string, ThinkingLevel>> = {
  none: "none",
  minimal: "low",
  low: "low",
  medium: "medium",
  high: "high",
  xhigh: "xhigh",
};
