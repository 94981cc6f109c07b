// Checks the relay Worker's demo page in a real browser: starts the Worker with `wrangler dev` (the
// top-level wrangler.toml, as `npm run dev` does; own process group, stopped at the end; a second one
// relays to a local node:http MMSP server), opens
// GET / in Debian's Chromium through playwright-core, streams samples through the page and checks
// what it renders: thinking (dimmed, in its own box), text, a tool call whose arguments fill in
// while it streams, an image (naturalWidth > 0), audio, embeddings, usage and finish reason, and an
// error with its class and type. Keeps .ci-out/demo-page.png (the tool-call sample; the other
// samples as .ci-out/demo-page-<sample>.png; a dropped and resumed connection as
// .ci-out/demo-page-reconnect.png; a 390 px phone as .ci-out/demo-page-390.png and -390-relay.png). Prints "demo page: N passed, N failed".
//
// Run: node scripts/demo-page-check.mjs     (CHROMIUM_PATH overrides /usr/bin/chromium)
import assert from "node:assert/strict";
import { mkdir, readFile } from "node:fs/promises";
import http from "node:http";
import { fileURLToPath } from "node:url";
import { startWranglerDev } from "./wrangler-dev.mjs";
import { namedTests } from "./named-tests.mjs";
import { chromium } from "playwright-core";

const t0 = performance.now();
const root = fileURLToPath(new URL("../", import.meta.url));
const OUT = `${root}.ci-out`;
await mkdir(OUT, { recursive: true });
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

// ---- what the samples hold (read straight from samples/*.sse) -----------------------------------------

async function sample(name) {
  const text = await readFile(`${root}samples/${name}.sse`, "utf8");
  const events = [...text.matchAll(/^data: (.*)$/gm)].map((m) => m[1]).filter((d) => d !== "[DONE]").map((d) => JSON.parse(d));
  const done = events.filter((e) => !e.error && e.event_type === "delta" && e.content_items[0].type.endsWith(".done")).map((e) => e.content_items[0]);
  const deltas = events.filter((e) => !e.error && e.event_type === "delta" && e.content_items[0].type.endsWith(".delta")).map((e) => e.content_items[0]);
  const stop = events.find((e) => e.event_type === "stop");
  return { events, done, deltas, stop, error: events.find((e) => e.error)?.error };
}

// ---- the Worker under wrangler dev (twice: replaying the samples, and relaying to a local upstream) ---

/** The relay Worker under `wrangler dev` (scripts/wrangler-dev.mjs); `base` ends with "/". */
async function startWorker(name, vars = {}) {
  const w = await startWranglerDev({ logPath: `${OUT}/demo-page.${name}.log`, persistTo: `${root}.wrangler/state-demo-${name}`, vars });
  return { base: `${w.base}/`, stop: w.stop };
}

// the MMSP server the relaying Worker talks to: serves samples/tool-call.sse in small chunks, or, for
// the model "broken-model", a stream that breaks the protocol (a thinking fragment inside a text group)
const upstreamRequests = [];
const upstream = http.createServer(async (req, res) => {
  let body = "";
  for await (const chunk of req) body += chunk;
  upstreamRequests.push({ url: req.url, body: JSON.parse(body) });
  if (JSON.parse(body).model === "proxy-model") {
    // a proxy's login page, answered with 200: the page must say what it is (issue #12)
    res.writeHead(200, { "content-type": "text/html" });
    res.end("<!DOCTYPE html><html><head><title>Proxy login</title></head><body>Sign in</body></html>\n");
    return;
  }
  res.writeHead(200, { "content-type": "text/event-stream" });
  if (JSON.parse(body).model === "markup-model") {
    // inline_data a page must not show as itself: SVG and HTML with script, then a PNG it shows
    const ev = (item) => `data: ${JSON.stringify({ role: "assistant", event_type: "delta", content_items: [item], usage_metadata: null, finish_reason: null })}\n\n`;
    const png = (await readFile(`${root}samples/image.sse`, "utf8")).match(/"type": "inline_data\.done", "data": "([^"]+)"/)[1];
    let out = "";
    for (const [mime, data] of [["image/svg+xml", Buffer.from('<svg xmlns="http://www.w3.org/2000/svg"><script>parent.pwned=1</script></svg>').toString("base64")], ["text/html", Buffer.from("<script>parent.pwned=1</script>").toString("base64")], ["image/png", png]])
      out += ev({ type: "inline_data.delta", data, mime_type: mime }) + ev({ type: "inline_data.done", data, mime_type: mime });
    const stop = { role: "assistant", event_type: "stop", content_items: [], usage_metadata: { cached_tokens: 0, prompt_tokens: 1, thoughts_tokens: 0, response_tokens: 1 }, finish_reason: "stop" };
    res.end(out + `data: ${JSON.stringify(stop)}\n\ndata: [DONE]\n\n`);
    return;
  }
  if (JSON.parse(body).model === "broken-model") {
    const delta = (item) => `data: ${JSON.stringify({ role: "assistant", event_type: "delta", content_items: [item], usage_metadata: null, finish_reason: null })}\n\n`;
    res.end(delta({ type: "text.delta", text: "Sure, " }) + delta({ type: "thinking.delta", thinking: "wait" }));
    return;
  }
  const text = await readFile(`${root}samples/tool-call.sse`);
  for (let i = 0; i < text.length; i += 64) {
    res.write(text.subarray(i, i + 64));
    await sleep(2);
  }
  res.end();
});
await new Promise((resolve) => upstream.listen(0, "127.0.0.1", resolve));

let workers;
try {
  // One after the other: both run the Worker's build step, which writes the same generated file.
  workers = [await startWorker("replay"), await startWorker("relay", { MMSP_UPSTREAM: `http://127.0.0.1:${upstream.address().port}/v1` })];
} catch (e) {
  console.log(String(e?.message ?? e));
  console.log("demo page: 0 passed, 1 failed");
  process.exit(1);
}
const [{ base }, { base: relayBase }] = workers;
console.log(`wrangler dev: ${base} (replay), ${relayBase} (relay) (${Math.round(performance.now() - t0)} ms)`);

// ---- the browser -------------------------------------------------------------------------------------

const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM_PATH || "/usr/bin/chromium",
  headless: true,
  args: ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync"],
});
const context = await browser.newContext({ viewport: { width: 1000, height: 900 }, deviceScaleFactor: 1 });
const page = await context.newPage();
const pageErrors = [];
page.on("pageerror", (e) => pageErrors.push(String(e)));
page.on("console", (m) => m.type() === "error" && pageErrors.push(`console: ${m.text()}`));

/** Picks a model (and wire format), presses Send, waits for the run to end; returns the final state. */
async function runSample(model, { wire = "sse", timeout = 20_000 } = {}) {
  await page.selectOption("#model", model);
  await page.selectOption("#wire", wire);
  await page.click("#send");
  await page.waitForFunction(() => ["done", "error"].includes(document.getElementById("status").dataset.state), null, { timeout });
  return page.evaluate(() => ({
    state: document.getElementById("status").dataset.state,
    status: document.getElementById("status-text").textContent,
    items: [...document.querySelectorAll("#output .item")].map((n) => ({
      kind: n.dataset.kind,
      partial: n.dataset.partial,
      text: n.querySelector(".body")?.textContent ?? null,
      args: n.querySelector("pre.args")?.textContent ?? null,
      head: n.querySelector(".tool-head")?.textContent ?? null,
      fontStyle: getComputedStyle(n).fontStyle,
      color: getComputedStyle(n).color,
    })),
    finish: document.getElementById("finish").textContent,
    finishReason: document.getElementById("finish").dataset.finishReason ?? null,
    error: document.getElementById("error").classList.contains("shown")
      ? { ...document.getElementById("error").dataset, text: document.getElementById("error").textContent }
      : null,
  }));
}

/** The form's fields and buttons stay inside its card (at 1280 px, as the issue saw it, at 1000 px and on a 390 px phone). */
async function fitsItsCard() {
  for (const width of [1280, 1000, 390]) {
    await page.setViewportSize({ width, height: 900 });
    const out = await page.evaluate(() => {
      const card = document.getElementById("form").getBoundingClientRect();
      return [...document.querySelectorAll("#form textarea, #form select, #form input, #form button")]
        .filter((n) => n.getBoundingClientRect().width > 0 && n.getBoundingClientRect().right > card.right + 0.5)
        .map((n) => n.id);
    });
    assert.deepEqual(out, [], `at ${width} px these overflow the form's card`);
  }
  // at 390 px (issue #26): no page wider than the screen, the model, wire and pace controls wide enough
  // to read, and no two labels on top of each other
  const phone = await page.evaluate(() => {
    const boxes = ["model", "wire", "pace"].map((id) => document.getElementById(id)).filter((n) => n && n.getBoundingClientRect().width > 0)
      .map((n) => ({ id: n.id, ...n.closest("label").getBoundingClientRect().toJSON(), control: n.getBoundingClientRect().width }));
    const overlaps = [];
    for (const a of boxes) for (const b of boxes) if (a.id < b.id && a.left < b.right - 1 && b.left < a.right - 1 && a.top < b.bottom - 1 && b.top < a.bottom - 1) overlaps.push(`${a.id}/${b.id}`);
    return { scrollWidth: document.documentElement.scrollWidth, narrow: boxes.filter((b) => b.control < 120).map((b) => `${b.id} ${Math.round(b.control)} px`), overlaps };
  });
  // (replay mode: model, wire and pace; relay mode: model and wire)
  await shot(await page.evaluate(() => (document.getElementById("pace-label").hidden ? "demo-page-390-relay" : "demo-page-390")));
  assert.ok(phone.scrollWidth <= 390, `the page is ${phone.scrollWidth} px wide at 390 px`);
  assert.deepEqual(phone.narrow, [], "controls narrower than 120 px at 390 px");
  assert.deepEqual(phone.overlaps, [], "labels on top of each other at 390 px");
  await page.setViewportSize({ width: 1000, height: 900 });
}

const shot = (name) => page.screenshot({ path: `${OUT}/${name}.png`, fullPage: true });

const { test, run } = namedTests("demo page", "demo page/chromium");

test("GET / loads the page; the model picker lists the samples; /demo.js runs", async () => {
  await page.goto(`${base}?pace=5`);
  await page.waitForFunction(() => document.documentElement.dataset.ready === "true", null, { timeout: 10_000 });
  const models = await page.$$eval("#model option", (os) => os.map((o) => o.value));
  assert.deepEqual(models, ["sample-chat", "sample-tools", "sample-image", "sample-audio", "sample-embeddings", "sample-error"]);
  assert.equal(await page.$eval("#pace", (s) => s.value), "5");
  await fitsItsCard();
});

test("sample-tools: thinking (dimmed, italic, own box), text, the tool call with its arguments, finish reason and usage", async () => {
  const want = await sample("tool-call");
  // pace 40 ms per event, and a record of every state the arguments box shows while streaming
  await page.goto(`${base}?pace=40`);
  await page.waitForFunction(() => document.documentElement.dataset.ready === "true");
  await page.evaluate(() => {
    window.argStates = [];
    new MutationObserver(() => {
      const pre = document.querySelector('.item[data-kind="tool_call"] pre.args');
      if (!pre) return;
      const last = window.argStates.at(-1);
      const state = { partial: pre.closest(".item").dataset.partial, text: pre.textContent };
      if (!last || last.text !== state.text || last.partial !== state.partial) window.argStates.push(state);
    }).observe(document.getElementById("output"), { subtree: true, childList: true, characterData: true, attributes: true });
  });
  const r = await runSample("sample-tools");
  await shot("demo-page");
  assert.equal(r.state, "done", r.status + JSON.stringify(r.error));
  assert.deepEqual(r.items.map((i) => i.kind), want.done.map((d) => d.type.replace(".done", "")));
  assert.ok(r.items.every((i) => i.partial === "false"));
  const thinking = r.items.find((i) => i.kind === "thinking");
  assert.equal(thinking.text, want.done.find((d) => d.type === "thinking.done").thinking);
  assert.equal(thinking.fontStyle, "italic");
  const text = r.items.find((i) => i.kind === "text");
  assert.equal(text.text, want.done.find((d) => d.type === "text.done").text);
  assert.equal(text.fontStyle, "normal");
  assert.notEqual(thinking.color, text.color, "thinking is dimmed");
  const call = want.done.find((d) => d.type === "tool_call.done");
  const tool = r.items.find((i) => i.kind === "tool_call");
  assert.deepEqual(JSON.parse(tool.args), call.arguments);
  assert.ok(tool.head.includes(call.name) && tool.head.includes(call.tool_call_id));
  assert.equal(r.finishReason, "tool_call");
  const u = want.stop.usage_metadata;
  assert.ok(r.finish.includes(`input tokens: ${u.cached_tokens} cached + ${u.prompt_tokens} prompt`), r.finish);
  assert.ok(r.finish.includes(`output tokens: ${u.thoughts_tokens} thoughts + ${u.response_tokens} response`), r.finish);
  // the client-side timings (issue #21): first event, first content and stop after the request, characters per second
  assert.match(r.finish, /timings: first event \d+(\.\d+)? m?s · first content \d+(\.\d+)? m?s · stop \d+(\.\d+)? m?s · \d+ chars\/s/, r.finish);
  // the arguments filled in live: partial states that grow toward the final object
  const states = await page.evaluate(() => window.argStates);
  const partial = states.filter((s) => s.partial === "true").map((s) => JSON.parse(s.text));
  assert.ok(partial.some((a) => Object.keys(a).length > 0 && JSON.stringify(a) !== JSON.stringify(call.arguments)), `partial argument states: ${JSON.stringify(partial)}`);
  assert.ok(partial.length >= 3, `${partial.length} partial states`);
  assert.deepEqual(JSON.parse(states.at(-1).text), call.arguments);
  assert.equal(states.at(-1).partial, "false");
});

test("sample-image: text, then the image (<img> from a Blob, naturalWidth > 0)", async () => {
  await page.goto(`${base}?pace=5`);
  await page.waitForFunction(() => document.documentElement.dataset.ready === "true");
  const want = await sample("image");
  const r = await runSample("sample-image");
  assert.equal(r.state, "done", r.status);
  assert.equal(r.items.find((i) => i.kind === "text").text, want.done.find((d) => d.type === "text.done").text);
  await page.waitForFunction(() => {
    const img = document.querySelector('.item[data-kind="inline_data"] img');
    return img && img.complete && img.naturalWidth > 0;
  }, null, { timeout: 5000 });
  const img = await page.$eval('.item[data-kind="inline_data"] img', (i) => ({ src: i.src, w: i.naturalWidth, h: i.naturalHeight }));
  assert.match(img.src, /^blob:/);
  assert.ok(img.w > 0 && img.h > 0, JSON.stringify(img));
  await shot("demo-page-image");
});

test("sample-audio: an <audio> player from a Blob, with a duration", async () => {
  const r = await runSample("sample-audio");
  assert.equal(r.state, "done", r.status);
  await page.waitForFunction(() => {
    const a = document.querySelector(".item audio");
    return a && a.readyState >= 1 && a.duration > 0;
  }, null, { timeout: 5000 });
  const audio = await page.$eval(".item audio", (a) => ({ src: a.src, duration: a.duration, controls: a.controls }));
  assert.match(audio.src, /^blob:/);
  assert.ok(audio.controls);
  assert.ok(Math.abs(audio.duration - 0.1) < 0.02, `duration ${audio.duration}`);
  await shot("demo-page-audio");
});

test("sample-embeddings: each vector with its dimension and first values", async () => {
  const want = await sample("embeddings");
  const r = await runSample("sample-embeddings");
  assert.equal(r.state, "done", r.status);
  const vectors = want.done.filter((d) => d.type === "embedding.done").map((d) => d.embedding);
  const shown = await page.$$eval('.item[data-kind="embedding"]', (ns) => ns.map((n) => ({ info: n.querySelector(".values").textContent, bars: n.querySelectorAll(".vector i").length })));
  assert.equal(shown.length, vectors.length);
  shown.forEach((s, k) => {
    assert.ok(s.info.startsWith(`${vectors[k].length} dimensions · [${vectors[k][0].toFixed(4)}, `), s.info);
    assert.equal(s.bars, Math.min(64, vectors[k].length));
  });
  await shot("demo-page-embeddings");
});

test("sample-error: the text so far, then the error with its class, type and status", async () => {
  const want = await sample("error");
  const r = await runSample("sample-error");
  assert.equal(r.state, "error");
  assert.equal(r.items[0].kind, "text");
  assert.equal(r.items[0].text, want.deltas.map((d) => d.text).join(""));
  assert.equal(r.error.errorClass, "UpstreamError");
  assert.equal(r.error.errorType, want.error.type);
  assert.ok(r.error.text.includes(want.error.message), r.error.text);
  assert.ok(r.error.text.includes(`status${want.error.status}`), r.error.text);
  assert.equal(r.finish, "");
  await shot("demo-page-error");
});

test("sample-chat over NDJSON (Accept: application/x-ndjson): the same text", async () => {
  const want = await sample("chat");
  const r = await runSample("sample-chat", { wire: "ndjson" });
  assert.equal(r.state, "done", r.status);
  assert.equal(r.items.find((i) => i.kind === "text").text, want.done.find((d) => d.type === "text.done").text);
  assert.equal(r.finishReason, want.stop.finish_reason);
  await page.selectOption("#wire", "sse");
});

test("Stop: DELETE on the stream's Content-Location; the page shows stopped (no red error box), the open item stopped; a second viewer sees the StreamCancelled end", async () => {
  const want = await sample("tool-call");
  await page.selectOption("#pace", "150");
  await page.selectOption("#model", "sample-tools");
  const deletes = [];
  const onRequest = (r) => r.method() === "DELETE" && deletes.push(r.url());
  page.on("request", onRequest);
  await page.click("#send");
  await page.waitForFunction(() => document.querySelectorAll("#log li").length >= 2 && document.documentElement.dataset.stream);
  const location = await page.evaluate(() => document.documentElement.dataset.stream);
  // a second viewer, from the start, outside the page
  const viewer = fetch(location).then((r) => r.text());
  await page.click("#stop");
  await page.waitForFunction(() => ["stopped", "error", "done"].includes(document.getElementById("status").dataset.state), null, { timeout: 5000 });
  page.off("request", onRequest);
  const r = await page.evaluate(() => ({
    state: document.getElementById("status").dataset.state,
    status: document.getElementById("status-text").textContent,
    error: { ...document.getElementById("error").dataset },
    stoppedBox: document.getElementById("error").classList.contains("stopped"),
    title: document.querySelector("#error .title")?.textContent ?? null,
    badge: document.querySelector(".item .badge.stopped")?.textContent ?? null,
    cut: document.querySelector(".badge.cut")?.textContent ?? null,
    events: document.querySelectorAll("#log li:not(.note)").length,
  }));
  await shot("demo-page-stopped");
  assert.equal(r.state, "stopped", r.status);
  assert.match(r.status, /^stopped after \d+ events?$/);
  assert.deepEqual(deletes, [location]);
  assert.equal(r.error.errorClass, "UpstreamError");
  assert.equal(r.error.errorType, "StreamCancelled");
  // a deliberate Stop is said as stopped: a neutral box titled "Stopped", the open item "stopped", nothing "interrupted"
  assert.equal(r.stoppedBox, true, "the box is the neutral stopped one");
  assert.equal(r.title, "Stopped");
  assert.equal(r.badge, "stopped");
  assert.equal(r.cut, null);
  assert.ok(r.events < want.events.length, `${r.events} events`);
  const seen = await viewer;
  assert.match(seen, /data: \{"error":\{"type":"StreamCancelled"/);
  assert.ok(seen.endsWith("data: [DONE]\n\n") && !seen.includes('"event_type":"stop"'), seen.slice(-300));
});

test("Drop connection: the page shows reconnecting…, fromFetch resumes after the last event, the stream ends whole", async () => {
  const want = await sample("tool-call");
  await page.goto(`${base}?pace=60`);
  await page.waitForFunction(() => document.documentElement.dataset.ready === "true");
  assert.equal(await page.isVisible("#drop"), true);
  await page.evaluate(() => {
    window.statusStates = [];
    new MutationObserver(() => window.statusStates.push(document.getElementById("status").dataset.state)).observe(document.getElementById("status"), { attributes: true });
  });
  await page.selectOption("#model", "sample-tools");
  await page.click("#send");
  await page.waitForFunction(() => document.querySelectorAll("#log li").length >= 4 && !document.getElementById("drop").disabled);
  await page.click("#drop");
  await page.waitForFunction(() => ["done", "error"].includes(document.getElementById("status").dataset.state), null, { timeout: 20_000 });
  const r = await page.evaluate(() => ({
    state: document.getElementById("status").dataset.state,
    status: document.getElementById("status-text").textContent,
    states: window.statusStates,
    notes: [...document.querySelectorAll("#log li.note")].map((n) => n.textContent),
    events: document.querySelectorAll("#log li:not(.note)").length,
    text: document.querySelector('.item[data-kind="text"] .body')?.textContent,
    args: document.querySelector('.item[data-kind="tool_call"] pre.args')?.textContent,
  }));
  await shot("demo-page-reconnect");
  assert.equal(r.state, "done", r.status);
  assert.ok(r.states.includes("reconnecting"), `states: ${r.states.join(",")}`);
  assert.ok(r.states.lastIndexOf("streaming") > r.states.indexOf("reconnecting"), "streaming again after reconnecting");
  assert.match(r.status, /resumed 1×/);
  assert.equal(r.notes.length, 1, r.notes.join(" | "));
  assert.match(r.notes[0], /resuming after event \d+/);
  assert.equal(r.events, want.events.length, "every event once");
  assert.equal(r.text, want.done.find((d) => d.type === "text.done").text);
  assert.deepEqual(JSON.parse(r.args), want.done.find((d) => d.type === "tool_call.done").arguments);
});

test("relay mode (MMSP_UPSTREAM set): the model is typed, the page's request reaches the upstream, the answer renders", async () => {
  const want = await sample("tool-call");
  await page.goto(relayBase);
  await page.waitForFunction(() => document.documentElement.dataset.ready === "true");
  assert.equal(await page.$eval("#model", (m) => m.tagName), "INPUT");
  assert.ok((await page.textContent("#mode")).includes("Relaying"));
  assert.equal(await page.isVisible("#pace"), false);
  await fitsItsCard();
  await page.fill("#model", "some-real-model");
  await page.fill("#prompt", "Weather in Paris?");
  await page.click("#send");
  await page.waitForFunction(() => ["done", "error"].includes(document.getElementById("status").dataset.state));
  const state = await page.$eval("#status", (n) => n.dataset.state);
  assert.equal(state, "done", await page.textContent("#status"));
  const req = upstreamRequests.at(-1);
  assert.equal(req.url, "/v1/stream");
  assert.equal(req.body.model, "some-real-model");
  assert.equal(req.body.messages[0].content_items[0].text, "Weather in Paris?");
  const args = await page.$eval('.item[data-kind="tool_call"] pre.args', (p) => p.textContent);
  assert.deepEqual(JSON.parse(args), want.done.find((d) => d.type === "tool_call.done").arguments);
});

test("relay mode: an upstream that breaks the protocol → the error with its class, type and rule (NO-INTERLEAVE)", async () => {
  await page.fill("#model", "broken-model");
  await page.click("#send");
  await page.waitForFunction(() => document.getElementById("status").dataset.state === "error");
  const e = await page.$eval("#error", (n) => ({ ...n.dataset, text: n.textContent }));
  assert.equal(e.errorClass, "UpstreamError");
  assert.equal(e.errorType, "StreamProtocolError");
  assert.equal(e.rule, "NO-INTERLEAVE");
  assert.ok(e.text.includes("causeStreamProtocolError") && e.text.includes("ruleNO-INTERLEAVE"), e.text);
  assert.ok(e.text.includes("upstream broke the streaming protocol"), e.text);
  assert.equal(await page.$eval('.item[data-kind="text"] .body', (b) => b.textContent), "Sure, ");
  await shot("demo-page-protocol-error");
});

test("relay mode: an HTML page from a proxy is named (its title), and the placeholder gives way to the error", async () => {
  await page.fill("#model", "proxy-model");
  await page.click("#send");
  await page.waitForFunction(() => document.getElementById("status").dataset.state === "error");
  const e = await page.$eval("#error", (n) => ({ ...n.dataset, text: n.textContent }));
  assert.ok(/HTML page titled "Proxy login"/.test(e.text), e.text);
  assert.ok(!/ended without a stop event|<empty input>/.test(e.text), e.text);
  const placeholder = await page.$eval("#output", (o) => getComputedStyle(o, "::before").content);
  assert.ok(placeholder === "none" || placeholder === "normal", `placeholder hidden: ${placeholder}`);
  await shot("demo-page-html-error");
});

test("relay mode: inline_data that is not a raster image or audio (SVG, HTML with script) is only a download of application/octet-stream; a PNG is shown", async () => {
  // (the page's CSP keeps even the page from fetching its Blob URLs: the Blobs' types are recorded as made)
  await page.evaluate(() => {
    const make = URL.createObjectURL;
    window.blobTypes = [];
    URL.createObjectURL = (blob) => (window.blobTypes.push(blob.type), make(blob));
  });
  await page.fill("#model", "markup-model");
  await page.click("#send");
  await page.waitForFunction(() => ["done", "error"].includes(document.getElementById("status").dataset.state));
  assert.equal(await page.$eval("#status", (n) => n.dataset.state), "done", await page.textContent("#status"));
  const items = await page.$$eval('.item[data-kind="inline_data"]', (ns) =>
    ns.map((n) => ({ img: n.querySelector("img")?.src ?? null, link: n.querySelector("a")?.href ?? null, download: n.querySelector("a")?.download ?? null, meta: n.querySelector(".meta").textContent })),
  );
  assert.equal(items.length, 3);
  for (const item of items.slice(0, 2)) {
    assert.equal(item.img, null, JSON.stringify(item));
    assert.match(item.link, /^blob:/);
    assert.ok(item.download);
  }
  assert.deepEqual(await page.evaluate(() => window.blobTypes), ["application/octet-stream", "application/octet-stream", "image/png"]);
  assert.match(items[0].meta, /^image\/svg\+xml/);
  assert.match(items[2].img, /^blob:/);
  assert.equal(await page.evaluate(() => window.pwned), undefined);
});

test("no page errors (uncaught or console) in the runs above", async () => {
  assert.deepEqual(pageErrors, []);
});

test("a refusal is shown as an error (unknown model → UpstreamError NotFoundError, status 404)", async () => {
  await page.goto(`${base}?pace=0&model=sample-nope`);
  await page.waitForFunction(() => document.documentElement.dataset.ready === "true");
  await page.click("#send");
  await page.waitForFunction(() => document.getElementById("status").dataset.state === "error");
  const e = await page.$eval("#error", (n) => ({ ...n.dataset, text: n.textContent }));
  assert.equal(e.errorClass, "UpstreamError");
  assert.equal(e.errorType, "NotFoundError");
  assert.ok(e.text.includes("status404"), e.text);
});

// ---- run ---------------------------------------------------------------------------------------------

console.log(`browser: Chromium ${browser.version()}`);
console.log(`screenshot: .ci-out/demo-page.png`);
await run({
  timeoutMs: 120_000,
  t0,
  cleanup: async () => {
    await browser.close();
    await Promise.all(workers.map((w) => w.stop()));
    upstream.closeAllConnections();
    upstream.close();
  },
});
