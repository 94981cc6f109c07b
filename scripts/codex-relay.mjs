#!/usr/bin/env node
// Codex (`codex exec`, @openai/codex) against the relay's Open Responses door (issue #46), offline:
// the relay (dist/, createRelay) served in Node by the kit's `serve`, one model backed by the kit's
// fake OpenAI Responses provider scripted to answer a shell call first and, once the call's output
// comes back, text. Codex runs with a minimal custom Responses provider pointed at the relay, its
// sandbox bypass flag, and a CODEX_HOME of its own. Prints each request the relay answered (status,
// and the refusal's message) and Codex's output; exits 0 when Codex finished with the scripted text.
//   node scripts/codex-relay.mjs            (npm run codex:relay)
import { spawn } from "node:child_process";
import * as http from "node:http";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openaiResponses } from "../dist/providers/index.js";
import { createRelay } from "../dist/relay/index.js";
import { fakeProvider, parseCapture, serve } from "../dist/testing/index.js";

const sse = (...events) => events.map((e, i) => `event: ${e.type}\ndata: ${JSON.stringify({ ...e, sequence_number: i })}\n\n`).join("");
const resource = (status, extra = {}) => ({ id: "resp_fake", object: "response", created_at: 1, status, model: "gpt-fake", output: [], ...extra });
const usage = { input_tokens: 10, input_tokens_details: { cached_tokens: 0 }, output_tokens: 5, output_tokens_details: { reasoning_tokens: 0 }, total_tokens: 15 };
const frame = (...items) => sse({ type: "response.created", response: resource("in_progress") }, ...items, { type: "response.completed", response: resource("completed", { usage }) });

// (Codex 0.171's shell tool: exec_command, taking { cmd })
const ARGS = JSON.stringify({ cmd: "echo relay-ok" });
const CALL = frame(
  { type: "response.output_item.added", output_index: 0, item: { id: "fc_1", type: "function_call", status: "in_progress", call_id: "call_shell_1", name: "exec_command", arguments: "" } },
  { type: "response.function_call_arguments.delta", item_id: "fc_1", output_index: 0, delta: ARGS },
  { type: "response.function_call_arguments.done", item_id: "fc_1", output_index: 0, arguments: ARGS },
  { type: "response.output_item.done", output_index: 0, item: { id: "fc_1", type: "function_call", status: "completed", call_id: "call_shell_1", name: "exec_command", arguments: ARGS } },
);
const TEXT = "The command printed relay-ok.";
const ANSWER = frame(
  { type: "response.output_item.added", output_index: 0, item: { id: "msg_1", type: "message", status: "in_progress", role: "assistant", content: [] } },
  { type: "response.content_part.added", item_id: "msg_1", output_index: 0, content_index: 0, part: { type: "output_text", annotations: [], text: "" } },
  { type: "response.output_text.delta", item_id: "msg_1", output_index: 0, content_index: 0, delta: TEXT, logprobs: [] },
  { type: "response.output_text.done", item_id: "msg_1", output_index: 0, content_index: 0, text: TEXT, logprobs: [] },
  { type: "response.content_part.done", item_id: "msg_1", output_index: 0, content_index: 0, part: { type: "output_text", annotations: [], text: TEXT } },
  { type: "response.output_item.done", output_index: 0, item: { id: "msg_1", type: "message", status: "completed", role: "assistant", content: [{ type: "output_text", annotations: [], text: TEXT }] } },
);

let ranShell = false;
const calls = fakeProvider("openai-responses", { streams: { "gpt-fake": parseCapture(CALL) } });
const answers = fakeProvider("openai-responses", { streams: { "gpt-fake": parseCapture(ANSWER) } });
// (the call's output back in the request: the text answer; else the shell call)
const fetchFake = async (input, init) => {
  const request = new Request(input, init);
  const body = await request.clone().text();
  const answered = body.includes('"function_call_output"');
  if (answered) ranShell ||= /relay-ok/.test(JSON.stringify(JSON.parse(body).input.filter((i) => i.type === "function_call_output")));
  return (answered ? answers : calls)(request);
};
const provider = openaiResponses({ apiKey: "fake-key", baseURL: "https://fake.openai.test/v1", fetch: fetchFake });
const relay = createRelay({
  // (hostedTools: "drop": Codex's web_search and namespace tools left out, the answer's x-mmsp-warning naming them)
  models: { "codex-relay": { provider, model: "gpt-fake", allow: { thinking_level: true }, hostedTools: "drop" } },
  allowAnonymous: true,
  clientAddress: () => "127.0.0.1",
});
const served = await serve(async (request) => {
  const answer = await relay.fetch(request, { RELAY_SEAL_KEY: "codex-relay-script-seal-key-0123456789" });
  const path = new URL(request.url).pathname;
  const note = answer.ok ? (answer.headers.has("x-mmsp-warning") ? ` (warning: ${answer.headers.get("x-mmsp-warning")})` : "") : ` ${await answer.clone().text()}`;
  console.log(`relay: ${request.method} ${path} → ${answer.status}${note}`);
  return answer;
}, { http });

const home = mkdtempSync(join(tmpdir(), "codex-home-"));
const provider_ = `model_providers.relay={name="relay",base_url="${served.url}/v1",wire_api="responses"}`;
const args = [
  "codex", "exec", "--dangerously-bypass-approvals-and-sandbox", "--skip-git-repo-check",
  "-c", "model_provider=relay", "-c", provider_, "-m", "codex-relay", "Run `echo relay-ok` in the shell and tell me what it printed.",
];
const child = spawn("npx", args, { env: { ...process.env, CODEX_HOME: home, OPENAI_API_KEY: "unused" }, stdio: ["ignore", "pipe", "pipe"] });
let out = "";
child.stdout.on("data", (d) => (out += d));
child.stderr.on("data", (d) => process.stderr.write(d));
const timer = setTimeout(() => child.kill("SIGTERM"), 120_000);
const code = await new Promise((resolve) => child.on("close", resolve));
clearTimeout(timer);
console.log(`codex exited ${code}; the shell call's output came back with relay-ok: ${ranShell}; its last message:\n${out.trim()}`);
await served.close();
rmSync(home, { recursive: true, force: true });
process.exit(code === 0 && ranShell && out.includes(TEXT) ? 0 : 1);
