// The Chat dialects of compatible servers (SPEC §9, issue #35): OpenRouter's `reasoning_details`,
// Mistral's `content` chunks, Groq's `x_groq.usage`, `n > 1` — each capture (written from the vendor's
// API reference) read whole, byte by byte and in random chunkings gives the exact events and message,
// and every converted stream is re-read by UniEventStream (providers.ts `run`).
import fc from "fast-check";
import { assert, assertEqual, type Case, utf8 } from "../harness.ts";
import { cuts } from "../arbitraries.ts";
import { convert, errorOf, items, run } from "./providers.ts";
import * as d from "./providers/captures-openai-chat-dialects.ts";

type Json = Record<string, any>;

const thinking = (t: string, fidelity?: Json): Json => ({ type: "thinking.delta", thinking: t, ...(fidelity ? { fidelity } : {}) });
const text = (t: string): Json => ({ type: "text.delta", text: t });

const CLAUDE_ENTRY = { type: "reasoning.text", text: "The user wants the weather.", format: "anthropic-claude-v1", index: 0, signature: d.CLAUDE_SIGNATURE };
const SUMMARY_ENTRY = { type: "reasoning.summary", summary: "**Adding**\n\n2 + 2 is 4.", format: "openai-responses-v1", index: 0 };
const ENCRYPTED_ENTRY = { type: "reasoning.encrypted", data: d.ENCRYPTED_DATA, id: "rs_0123456789abcdef", format: "openai-responses-v1", index: 0 };

const CAPTURES = Object.entries(d).filter(([, v]) => typeof v === "string" && v.startsWith("data:")) as [string, string][];

/** What a conversion gives, for comparing chunkings (created_at differs run to run). */
const outcome = (r: Awaited<ReturnType<typeof convert>>) => ({
  items: items(r.events),
  error: errorOf(r.error),
  message: r.message && { ...r.message, created_at: 0 },
  warnings: r.warnings,
});

export const cases: Case[] = [
  ["openai-chat dialects: OpenRouter reasoning_details (Claude) → the thinking, its entry merged whole (signature too) in fidelity.reasoning_details, before the tool call", async () => {
    const r = await run("openai-chat", d.OPENROUTER_CLAUDE_TOOL);
    // bound data: stamped with its maker (SPEC §9 "Where each item came from")
    const fidelity = { reasoning_details: [CLAUDE_ENTRY], provider: "openai-chat", model: "anthropic/claude-sonnet-4.5" };
    assertEqual(r.items.slice(0, 4), [
      thinking("The user wants"),
      thinking(" the weather."),
      thinking("", fidelity),
      { type: "thinking.done", thinking: "The user wants the weather.", fidelity },
    ]);
    assertEqual(r.message.content_items[1], { type: "tool_call.done", name: "get_weather", tool_call_id: "toolu_01A", arguments: { city: "Paris" } });
    assertEqual(r.message.finish_reason, "tool_call");
  }],
  ["openai-chat dialects: OpenRouter summary then encrypted reasoning (OpenAI) → one thinking item carrying both entries, then the answer", async () => {
    const r = await run("openai-chat", d.OPENROUTER_SUMMARY_ENCRYPTED);
    assertEqual(r.message.content_items, [
      { type: "thinking.done", thinking: "**Adding**\n\n2 + 2 is 4.", fidelity: { reasoning_details: [SUMMARY_ENTRY, ENCRYPTED_ENTRY], provider: "openai-chat", model: "openai/gpt-5" } },
      { type: "text.done", text: "4" },
    ]);
    assertEqual(r.message.usage_metadata, { cached_tokens: null, prompt_tokens: 20, thoughts_tokens: 128, response_tokens: 12 });
  }],
  ["openai-chat dialects: an encrypted entry alone → a thinking item with empty thinking that carries it (as Responses' encrypted_content)", async () => {
    const r = await run("openai-chat", d.OPENROUTER_ENCRYPTED_ONLY);
    const fidelity = { reasoning_details: [ENCRYPTED_ENTRY], provider: "openai-chat", model: "openai/gpt-5" };
    assertEqual(r.items.slice(0, 2), [thinking("", fidelity), { type: "thinking.done", thinking: "", fidelity }]);
    assertEqual(r.message.content_items[1], { type: "text.done", text: "Done." });
  }],
  ["openai-chat dialects: a reasoning_details entry's __proto__ member stays data (no prototype is set or polluted)", async () => {
    const r = await run("openai-chat", d.DETAILS_PROTO);
    const entry = r.message.content_items[0].fidelity.reasoning_details[0];
    assert(Object.getPrototypeOf(entry) === Object.prototype, "the entry is a plain object");
    assert(Object.prototype.hasOwnProperty.call(entry, "__proto__"), "__proto__ is an own member");
    assertEqual(Object.getOwnPropertyDescriptor(entry, "__proto__")!.value, { again: 1 });
    assertEqual({ text: entry.text, signature: entry.signature }, { text: "ab", signature: "sig" });
    assert(!("polluted" in {}) && !("again" in {}), "Object.prototype untouched");
  }],
  ["openai-chat dialects: Mistral's content chunks → thinking from the thinking chunks' text, text from the text chunks and strings", async () => {
    const r = await run("openai-chat", d.MISTRAL_THINKING);
    const field = { reasoning_field: "content" };
    assertEqual(r.items, [
      thinking("Two plus ", field),
      thinking("two"),
      thinking(" is four."),
      { type: "thinking.done", thinking: "Two plus two is four.", fidelity: field },
      text("The answer"),
      text(" is 4"),
      text("."),
      { type: "text.done", text: "The answer is 4." },
      { stop: "stop", usage: { cached_tokens: null, prompt_tokens: 10, thoughts_tokens: null, response_tokens: 22 } },
    ]);
  }],
  ["openai-chat dialects: Groq's usage in x_groq.usage (beside choices) is the usage", async () => {
    const r = await run("openai-chat", d.GROQ_X_GROQ);
    assertEqual(r.error, undefined);
    assertEqual(r.message.content_items, [{ type: "text.done", text: "Hello" }]);
    assertEqual(r.message.usage_metadata, { cached_tokens: null, prompt_tokens: 12, thoughts_tokens: null, response_tokens: 2 });
  }],
  ["openai-chat dialects: n > 1 → choice 0 only (the other choices' deltas and finish are not the answer)", async () => {
    const r = await run("openai-chat", d.N_TWO_CHOICES);
    assertEqual(r.message.content_items, [{ type: "text.done", text: "Red rose" }]);
    assertEqual(r.message.finish_reason, "stop");
  }],
  ["openai-chat dialects: every capture gives the same events, message and error byte by byte and under any chunking", async () => {
    const whole = new Map<string, unknown>();
    for (const [name, body] of CAPTURES) {
      whole.set(name, outcome(await convert("openai-chat", body)));
      const bytes = utf8(body);
      assertEqual(outcome(await convert("openai-chat", body, Array.from(bytes, (_, i) => i))), whole.get(name), `${name} byte by byte`);
    }
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...CAPTURES), cuts(4000), async ([name, body], at) => {
        const n = utf8(body).length;
        assertEqual(outcome(await convert("openai-chat", body, at.map((c) => c % n))), whole.get(name), name);
      }),
      { numRuns: 60 },
    );
  }],
];
