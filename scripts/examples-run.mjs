// Runs every example the way a user would and checks what it prints or renders:
//   examples/node.mjs     with node (local HTTP server + fetch + fromResponse)
//   examples/deno.ts      with deno run --check (file → UniEventStream)
//   examples/browser.html in Debian's Chromium (playwright-core), served by a tiny static server
//   examples/browser-own-key.html in Chromium against the kit's fake Anthropic on another origin (CORS)
//   examples/worker.ts    in workerd through Miniflare (POST /message)
// Prints "examples: N passed, N failed".
import { execFile } from "node:child_process";
import { readFile } from "node:fs/promises";
import { createServer } from "node:http";
import { extname, join, normalize, resolve } from "node:path";
import { promisify } from "node:util";
import { build } from "esbuild";
import { Miniflare } from "miniflare";
import { launchChromium, pageErrors } from "./chromium.mjs";

const root = resolve(new URL("..", import.meta.url).pathname);
const run = promisify(execFile);
const t0 = performance.now();
const sample = new Uint8Array(await readFile(join(root, "examples/sample.sse")));

// What examples/sample.sse holds (the examples must show exactly this)
const THINKING = "The user wants the weather in Zürich. I should call get_weather.";
const TEXT = "Let me check the weather in Zürich ☀️ for you — 😀";
const TOOL = { type: "tool_call.done", name: "get_weather", tool_call_id: "call_1", arguments: { city: "Zürich", unit: "celsius" } };
const message = {
  role: "assistant",
  content_items: [
    { type: "thinking.done", thinking: THINKING, fidelity: { signature: "c2lnLTE=" } },
    { type: "text.done", text: TEXT },
    TOOL,
  ],
  usage_metadata: { cached_tokens: 0, prompt_tokens: 42, thoughts_tokens: 18, response_tokens: 27 },
  finish_reason: "tool_call",
  created_at: 1764412800000,
};
const TOOL_LINE = `tool call: ${TOOL.name}(${JSON.stringify(TOOL.arguments)})`;

const results = [];
async function check(name, fn) {
  const t = performance.now();
  try {
    await fn();
    results.push({ name, ok: true });
    console.log(`✓ [examples] ${name} (${Math.round(performance.now() - t)} ms)`);
  } catch (e) {
    results.push({ name, ok: false });
    console.log(`✗ [examples] ${name}\n${e?.stack ?? e}`);
  }
}
function expect(cond, what, output) {
  if (!cond) throw new Error(`${what}\n--- output ---\n${output}`);
}

await check("node examples/node.mjs prints the text, the tool call and the usage", async () => {
  const { stdout } = await run(process.execPath, ["examples/node.mjs"], { cwd: root, timeout: 30_000 });
  const lines = stdout.split("\n");
  expect(lines[0] === TEXT, "first line is the streamed text", stdout);
  expect(lines.includes(TOOL_LINE), "prints the tool call", stdout);
  expect(lines.includes("finish_reason: tool_call"), "prints the finish reason", stdout);
  expect(lines.some((l) => l.startsWith("usage: input 42 tokens, output 45 tokens ")), "prints the usage", stdout);
});

await check("deno run examples/deno.ts prints every event and the message", async () => {
  const { stdout } = await run(join(root, "node_modules/.bin/deno"), ["run", "--check", "--allow-read", "examples/deno.ts"], {
    cwd: root, timeout: 60_000, env: { ...process.env, NO_COLOR: "1" },
  });
  const start = stdout.indexOf("\n{");
  expect(start > 0, "prints the message as JSON", stdout);
  const events = stdout.slice(0, start).split("\n");
  expect(events.length === 11 && events[0] === "thinking.delta" && events[10] === "stop (tool_call)", "prints the 11 events", stdout);
  expect(JSON.stringify(JSON.parse(stdout.slice(start))) === JSON.stringify(message), "the message equals the package's reading", stdout);
});

/** The repository's files over HTTP on 127.0.0.1 (a static server, as a user serves the examples). */
async function staticServer() {
  const TYPES = { ".html": "text/html", ".js": "text/javascript", ".mjs": "text/javascript", ".sse": "text/event-stream", ".json": "application/json" };
  const server = createServer(async (req, res) => {
    const path = normalize(join(root, decodeURIComponent(new URL(req.url, "http://x").pathname)));
    if (!path.startsWith(root + "/")) return res.writeHead(403).end();
    try {
      const body = await readFile(path);
      res.writeHead(200, { "content-type": `${TYPES[extname(path)] ?? "application/octet-stream"}; charset=utf-8` }).end(body);
    } catch {
      res.writeHead(404).end();
    }
  });
  await new Promise((r) => server.listen(0, "127.0.0.1", r));
  return server;
}

await check("examples/browser.html in Chromium renders the stream", async () => {
  const server = await staticServer();
  const browser = await launchChromium();
  try {
    const page = await browser.newPage();
    const errors = pageErrors(page);
    await page.goto(`http://127.0.0.1:${server.address().port}/examples/browser.html`);
    await page.waitForSelector("#status:not([data-state=reading])", { timeout: 15_000 });
    const shown = await page.evaluate(() => {
      const t = (id) => document.getElementById(id).textContent;
      return { status: t("status"), thinking: t("thinking"), text: t("text"), tools: t("tools"), usage: t("usage"),
        events: [...document.querySelectorAll("#events li")].map((li) => li.textContent) };
    });
    const out = JSON.stringify({ ...shown, errors }, null, 2);
    expect(shown.status === "done" && errors.length === 0, "the page finished without errors", out);
    expect(shown.text === TEXT && shown.thinking === THINKING, "renders the thinking and the text", out);
    expect(shown.tools === TOOL_LINE, "renders the tool call", out);
    expect(shown.usage === "finish_reason: tool_call; usage: 42 prompt, 18 thoughts, 27 response tokens", "renders the usage", out);
    expect(shown.events.length === 11 && shown.events[10] === "stop (tool_call)", "lists the 11 events", out);
  } finally {
    await browser.close();
    server.close();
  }
});

await check("examples/browser-own-key.html in Chromium against the kit's fake Anthropic (another origin: CORS): an answer, a Stop, a wrong key", async () => {
  const { startFakeAnthropic } = await import("../examples/fake-anthropic.mjs");
  const fake = await startFakeAnthropic({ port: 0 });
  const server = await staticServer();
  const browser = await launchChromium();
  try {
    const page = await browser.newPage();
    const errors = pageErrors(page);
    const crossOrigin = [];
    page.on("request", (r) => r.url().startsWith(fake.url) && crossOrigin.push(`${r.method()} ${new URL(r.url()).pathname}`));
    await page.goto(`http://127.0.0.1:${server.address().port}/examples/browser-own-key.html?baseURL=${fake.url}`);
    const ask = async (key) => {
      await page.fill("input[name=key]", key);
      await page.click("#ask button:not([type])");
    };
    const shown = () => page.evaluate(() => ({ status: document.getElementById("status").textContent, text: document.getElementById("text").textContent }));
    // a whole answer, rendered from snapshot() as it streams
    await ask("sk-ant-fake");
    await page.waitForSelector("#status[data-state=done], #status[data-state=error]", { timeout: 15_000 });
    let out = JSON.stringify({ ...(await shown()), errors, crossOrigin });
    expect((await shown()).text === "Hello from a fake Claude on your machine.", "renders the fake's answer", out);
    expect(crossOrigin.includes("POST /v1/messages"), "the page asked the fake itself, cross-origin (CORS: the fake answered the browser)", out);
    // Stop: the same typed StreamCancelled as fromFetch's; what arrived stays
    await ask("sk-ant-fake");
    await page.waitForFunction(() => document.getElementById("text").textContent.startsWith("Hello from") && document.getElementById("status").dataset.state === "reading", null, { timeout: 15_000 });
    await page.click("#stop");
    await page.waitForSelector("#status:not([data-state=reading])", { timeout: 15_000 });
    const stopped = await shown();
    out = JSON.stringify({ ...stopped, errors });
    expect(stopped.status === "stopped", "a Stop is told apart from a failure (UpstreamError StreamCancelled)", out);
    expect(stopped.text.startsWith("Hello from") && stopped.text !== "Hello from a fake Claude on your machine.", "what arrived before the Stop stays", out);
    expect(errors.length === 0, "no page error before the wrong key", JSON.stringify(errors));
    // a wrong key: the provider's refusal, typed (the browser logs the 401 itself)
    await ask("sk-ant-wrong");
    await page.waitForSelector("#status[data-state=error]", { timeout: 15_000 });
    out = JSON.stringify({ ...(await shown()), errors });
    expect(/error: UpstreamError: .*/.test((await shown()).status), "a wrong key is the provider's typed refusal", out);
    expect(errors.length === 1 && errors[0].includes("401"), "no page error but the refused request's own 401", out);
  } finally {
    await browser.close();
    server.close();
    await fake.close();
  }
});

await check("examples/worker.ts in workerd (Miniflare): POST /message streamed → message; broken → 422", async () => {
  const out = await build({
    entryPoints: [join(root, "examples/worker.ts")], bundle: true, format: "esm", platform: "neutral",
    mainFields: ["module", "main"], target: "es2022", write: false, logLevel: "warning",
  });
  const toml = await readFile(join(root, "test/worker/wrangler.toml"), "utf8");
  const compatibilityDate = /^compatibility_date\s*=\s*"([^"]+)"/m.exec(toml)[1];
  const mf = new Miniflare({ modules: true, script: out.outputFiles[0].text, compatibilityDate });
  try {
    const post = (body) => mf.dispatchFetch("http://localhost/message", {
      method: "POST", headers: { "content-type": "text/event-stream" }, body, duplex: "half",
    });
    let o = 0;
    const res = await post(new ReadableStream({
      pull(c) { if (o >= sample.length) c.close(); else c.enqueue(sample.slice(o, (o += 5))); },
    }));
    const got = await res.text();
    expect(res.status === 200 && got === JSON.stringify(message), "answers the message", got);
    const broken = new TextDecoder().decode(sample).replace(/"type":"text.delta"/, '"type":"text.done"');
    const bad = await post(broken);
    const err = await bad.text();
    expect(bad.status === 422 && JSON.parse(err).error.rule === "DONE-AFTER-DELTA", "answers 422 with the rule", err);
    const other = await mf.dispatchFetch("http://localhost/");
    expect(other.status === 404, "answers 404 elsewhere", await other.text());
  } finally {
    await mf.dispose();
  }
});

const passed = results.filter((r) => r.ok).length;
console.log(`examples: ${passed} passed, ${results.length - passed} failed (${Math.round(performance.now() - t0)} ms)`);
// (after stdout has drained: a pipe's writes are asynchronous, and an exit drops what is queued past its
// 64 KiB, the summary line included, as a CI run's wrangler-dev step did)
process.stdout.write("", () => process.exit(passed === results.length ? 0 : 1));
