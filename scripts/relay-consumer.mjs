// The relay as its users get it (mmsp-streams/relay): packs the tarball, installs it into a fresh
// project, writes the README's ten-line Worker (createRelay, its two Durable Objects re-exported: STREAMS and QUOTAS) and its
// wrangler.toml, runs it under `wrangler dev` in front of a scripted MMSP upstream (node:http on
// 127.0.0.1), and checks over real HTTP: a stream served whole, a resume after a cut (GET with
// Last-Event-ID) that gives the rest exactly once from one upstream request, and a DELETE that
// stops the stream (the upstream's request aborted within a second; the readers end with
// StreamCancelled, a resume afterwards replays the events and that end). Then docs/guide/deploying.md's provider
// form (createRelay({ models }), the key as a variable) in front of the tarball's own
// fakeProvider("anthropic"): served, resumed after a cut from one provider request, stopped (the
// provider's request aborted < 1 s), closed without RELAY_KEY, the key in no byte a client or the log got.
//
//   node scripts/relay-consumer.mjs     # prints "relay-consumer: N passed, N failed"; KEEP=1 keeps the temp dir
import { execFileSync, spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import http from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { fileURLToPath } from "node:url";
import { startWranglerDev } from "./wrangler-dev.mjs";

const ROOT = fileURLToPath(new URL("..", import.meta.url));
const TMP = mkdtempSync(join(tmpdir(), "mmsp-relay-consumer-"));
const APP = join(TMP, "app");
const results = [];
const t0 = performance.now();

async function check(name, fn) {
  const t = performance.now();
  try {
    const note = await fn();
    results.push(true);
    console.log(`✓ [relay-consumer] ${name} (${Math.round(performance.now() - t)} ms)${note ? `: ${note}` : ""}`);
  } catch (e) {
    results.push(false);
    console.log(`✗ [relay-consumer] ${name}\n  ${String(e?.stack ?? e).replaceAll("\n", "\n  ")}`);
  }
}
const assert = (ok, what) => {
  if (!ok) throw new Error(what);
};

// ---- the scripted upstream: POST /v1/stream → EVENTS text deltas `ms` apart, the text's done, the stop ------------
const EVENTS = 30;
/** tag → { requests, aborted: ms since the epoch when the relay went away before the end, or null } */
const seen = new Map();
const delta = (i) => ({
  role: "assistant",
  event_type: "delta",
  content_items: [{ type: "text.delta", text: `w${i} ` }],
  usage_metadata: null,
  finish_reason: null,
  created_at: 1767225600000 + i,
});
const textDone = {
  ...delta(EVENTS),
  content_items: [{ type: "text.done", text: Array.from({ length: EVENTS }, (_, i) => `w${i} `).join("") }],
};
const finish = {
  role: "assistant",
  event_type: "stop",
  content_items: [],
  usage_metadata: { cached_tokens: 0, prompt_tokens: 3, thoughts_tokens: 0, response_tokens: EVENTS },
  finish_reason: "stop",
  created_at: 1767225600001 + EVENTS,
};
const upstream = http.createServer(async (req, res) => {
  let body = "";
  for await (const chunk of req) body += chunk;
  if (req.method !== "POST" || req.url !== "/v1/stream") return res.writeHead(404).end();
  // `silentAfter`: after that many events the model goes quiet for 5 s (thinking): only aborting the
  // upstream request stops it then, not a cancel that waits for the next byte
  const { tag, ms = 40, silentAfter = Infinity } = JSON.parse(body);
  const entry = seen.get(tag) ?? { requests: 0, aborted: null };
  entry.requests++;
  seen.set(tag, entry);
  let ended = false;
  res.on("close", () => {
    if (!ended) entry.aborted = Date.now();
  });
  res.writeHead(200, { "content-type": "text/event-stream" });
  for (let i = 0; i < EVENTS && !res.destroyed; i++) {
    res.write(`data: ${JSON.stringify(delta(i))}\n\n`);
    await sleep(i + 1 === silentAfter ? 5000 : ms);
  }
  if (res.destroyed) return;
  ended = true;
  res.end(`data: ${JSON.stringify(textDone)}\n\ndata: ${JSON.stringify(finish)}\n\ndata: [DONE]\n\n`);
});
await new Promise((resolve) => upstream.listen(0, "127.0.0.1", resolve));
const UPSTREAM = `http://127.0.0.1:${upstream.address().port}/v1`;

/** SSE records of a body read to its end (or until `stopAfter` events): [{ id, data }], and whether [DONE] came. */
async function readSse(response, { stopAfter = Infinity, controller } = {}) {
  const reader = response.body.getReader();
  const decoder = new TextDecoder();
  let text = "";
  const events = [];
  let done = false;
  for (;;) {
    const { done: end, value } = await reader.read();
    if (end) break;
    text += decoder.decode(value, { stream: true });
    let at;
    while ((at = text.indexOf("\n\n")) !== -1) {
      const block = text.slice(0, at);
      text = text.slice(at + 2);
      const id = /^id: (\d+)$/m.exec(block)?.[1];
      const data = /^data: (.*)$/m.exec(block)?.[1];
      if (data === undefined) continue;
      if (data === "[DONE]") done = true;
      else events.push({ id: id === undefined ? null : Number(id), data: JSON.parse(data) });
    }
    if (events.length >= stopAfter) {
      controller?.abort();
      await reader.cancel().catch(() => {});
      break;
    }
  }
  return { events, done };
}

let stop = async () => {};
try {
  // ---- pack, a fresh project, the user's Worker -----------------------------------------------------
  let tarball;
  await check("npm pack; a fresh project installs the tarball", () => {
    const out = execFileSync("npm", ["pack", "--json", "--pack-destination", TMP], {
      cwd: ROOT,
      encoding: "utf8",
      stdio: ["ignore", "pipe", "pipe"],
    });
    const info = JSON.parse(out.slice(out.indexOf("[")))[0];
    tarball = join(TMP, info.filename);
    const files = info.files.map((f) => f.path);
    assert(files.includes("dist/relay/index.js") && files.includes("dist/relay/index.d.ts"), "the tarball lacks dist/relay/");
    mkdirSync(APP);
    writeFileSync(join(APP, "package.json"), JSON.stringify({ name: "my-relay", private: true, type: "module" }, null, 2));
    const r = spawnSync(
      "npm",
      ["install", tarball, "--prefer-offline", "--no-audit", "--no-fund", "--loglevel=error", "--no-package-lock"],
      {
        cwd: APP,
        encoding: "utf8",
        timeout: 120_000,
      },
    );
    assert(r.status === 0, `npm install exited ${r.status}\n${r.stdout}${r.stderr}`);
    return info.filename;
  });
  if (!tarball) throw new Error("no tarball: nothing else can be checked");

  // The README's Worker ("The relay in ten lines", docs/guide/deploying.md), the upstream's URL filled in
  const WORKER = `import { createRelay } from "mmsp-streams/relay";

const relay = createRelay({ upstream: "${UPSTREAM}" });

// the Durable Object class that keeps each stream (wrangler.toml: binding STREAMS)
export const RelayStream = relay.StreamObject;
// the Durable Object class of the quotas and the ledger, one per principal (binding QUOTAS)
export const QuotaObject = relay.QuotaObject;

export default relay;
`;
  const TOML = `name = "my-relay"
main = "worker.ts"
compatibility_date = "2026-04-01"

[[durable_objects.bindings]]
name = "STREAMS"
class_name = "RelayStream"

[[durable_objects.bindings]]
name = "QUOTAS"
class_name = "QuotaObject"

[[migrations]]
tag = "v1"
new_sqlite_classes = ["RelayStream", "QuotaObject"]
`;
  writeFileSync(join(APP, "worker.ts"), WORKER);
  writeFileSync(join(APP, "wrangler.toml"), TOML);

  await check("the Worker type-checks against the shipped .d.ts (tsc strict, bundler resolution, skipLibCheck off)", () => {
    const tsconfig = {
      compilerOptions: {
        target: "ES2022",
        module: "ESNext",
        moduleResolution: "Bundler",
        lib: ["ES2022", "DOM", "DOM.Iterable"],
        types: [],
        strict: true,
        skipLibCheck: false,
        noEmit: true,
      },
      files: ["worker.ts"],
    };
    writeFileSync(join(APP, "tsconfig.json"), JSON.stringify(tsconfig, null, 2));
    const r = spawnSync(process.execPath, [join(ROOT, "node_modules/typescript/bin/tsc"), "-p", "."], { cwd: APP, encoding: "utf8" });
    assert(r.status === 0, `tsc exited ${r.status}\n${r.stdout}${r.stderr}`);
  });

  let base;
  await check(`the ${WORKER.trim().split("\n").length}-line Worker starts under wrangler dev`, async () => {
    const dev = await startWranglerDev({
      cwd: APP,
      logPath: join(TMP, "wrangler.log"),
      persistTo: join(TMP, "state"),
      ready: async (b) => (await fetch(`${b}/v1/stream`)).status === 405,
    });
    stop = dev.stop;
    base = dev.base;
    return base;
  });
  if (!base) throw new Error(`wrangler dev did not start:\n${readFileSync(join(TMP, "wrangler.log"), "utf8").slice(-3000)}`);

  const create = (tag, ms, init = {}, extra = {}) =>
    fetch(`${base}/v1/stream`, {
      method: "POST",
      headers: { "content-type": "application/json", accept: "text/event-stream" },
      body: JSON.stringify({ model: "m", messages: [], tag, ms, ...extra }),
      ...init,
    });
  let whole;
  await check("POST /v1/stream: the stream served whole, ids 0…n, [DONE], Content-Location", async () => {
    const res = await create("whole", 5);
    if (res.status !== 200) throw new Error(`status ${res.status}: ${await res.text()}`);
    const location = res.headers.get("content-location") ?? "";
    assert(/^\/v1\/streams\/[0-9a-f]{32}$/.test(location), `Content-Location ${location}`);
    assert(res.headers.get("x-content-type-options") === "nosniff", "nosniff");
    whole = await readSse(res);
    assert(whole.done, "no [DONE]");
    assert(whole.events.length === EVENTS + 2, `${whole.events.length} events, not ${EVENTS + 2}`);
    assert(whole.events.every((e, i) => e.id === i), "ids not 0…n");
    assert(whole.events.at(-1).data.finish_reason === "stop", `no finish: ${JSON.stringify(whole.events.at(-1).data)}`);
    return `${whole.events.length} events`;
  });

  await check("resume after a cut: GET Last-Event-ID gives the rest exactly once; one upstream request", async () => {
    const controller = new AbortController();
    const res = await create("cut", 30, { signal: controller.signal });
    const location = res.headers.get("content-location");
    const first = await readSse(res, { stopAfter: 5, controller }); // the connection cut after 5 events
    const last = first.events.at(-1).id;
    await sleep(200);
    const resumed = await fetch(`${base}${location}`, { headers: { "last-event-id": String(last) } });
    assert(resumed.status === 200, `resume status ${resumed.status}`);
    const rest = await readSse(resumed);
    const all = [...first.events, ...rest.events];
    assert(rest.done, "resume: no [DONE]");
    assert(all.every((e, i) => e.id === i), `ids ${all.map((e) => e.id).join(",")}`);
    assert(
      JSON.stringify(all.map((e) => e.data)) === JSON.stringify(whole.events.map((e) => e.data)),
      "events differ from the uncut stream",
    );
    const entry = seen.get("cut");
    assert(entry.requests === 1 && entry.aborted === null, `upstream: ${JSON.stringify(entry)}`);
    return `${first.events.length} + ${rest.events.length} events`;
  });

  await check(
    "DELETE stops it while the model is quiet: the upstream's request aborted within a second; readers end with StreamCancelled",
    async () => {
      const res = await create("stop", 100, {}, { silentAfter: 4 }); // quiet from 0.4 s on
      const location = res.headers.get("content-location");
      const reading = readSse(res); // a viewer that stays
      await sleep(500);
      const t = Date.now();
      const del = await fetch(`${base}${location}`, { method: "DELETE" });
      assert(del.status === 204, `DELETE status ${del.status}`);
      for (let i = 0; i < 40 && seen.get("stop").aborted === null; i++) await sleep(50);
      const aborted = seen.get("stop").aborted;
      assert(aborted !== null, "the upstream request was not aborted");
      const ms = aborted - t;
      assert(ms <= 1000, `the upstream request was aborted ${ms} ms after the DELETE`);
      const viewer = await reading;
      const end = viewer.events.at(-1)?.data;
      assert(viewer.done && end?.error?.type === "StreamCancelled", `the viewer ended with ${JSON.stringify(end)}`);
      assert(viewer.events.length < EVENTS, `${viewer.events.length} events: not stopped`);
      const replay = await readSse(await fetch(`${base}${location}`));
      assert(JSON.stringify(replay.events) === JSON.stringify(viewer.events), "a resume afterwards replays other events");
      return `upstream aborted ${ms} ms after the DELETE; ${viewer.events.length} events, then StreamCancelled`;
    },
  );

  await check(
    "safe by default from the tarball: 415 for a form's text/plain, 404 for a resume or DELETE with other credentials (no oracle of which ids exist)",
    async () => {
      const form = await fetch(`${base}/v1/stream`, { method: "POST", headers: { "content-type": "text/plain" }, body: "{}" });
      assert(form.status === 415, `text/plain: ${form.status}`);
      const res = await fetch(`${base}/v1/stream`, {
        method: "POST",
        headers: { "content-type": "application/json", authorization: "Bearer alice" },
        body: JSON.stringify({ model: "m", messages: [], tag: "bound", ms: 1 }),
      });
      const location = res.headers.get("content-location");
      await readSse(res);
      for (const headers of [{}, { authorization: "Bearer mallory" }]) {
        const resume = await fetch(`${base}${location}`, { headers });
        assert(resume.status === 404, `resume with ${JSON.stringify(headers)}: ${resume.status}`);
        assert((await resume.json()).error?.type === "NotFoundError", `resume with ${JSON.stringify(headers)}: not a NotFoundError`);
        const del = await fetch(`${base}${location}`, { method: "DELETE", headers });
        assert(del.status === 404, `DELETE with ${JSON.stringify(headers)}: ${del.status}`);
        assert((await del.json()).error?.type === "NotFoundError", `DELETE with ${JSON.stringify(headers)}: not a NotFoundError`);
      }
      const own = await fetch(`${base}${location}`, { headers: { authorization: "Bearer alice" } });
      assert(own.status === 200 && (await readSse(own)).done, `resume with the creator's credentials: ${own.status}`);
    },
  );

  // ---- the provider form (docs/guide/deploying.md, "The relay as an MMSP server"): the Worker holds a provider's key ------------------
  // Its provider is the tarball's own fakeProvider("anthropic") on node:http (the capture of samples/providers/),
  // its base URL filled in as the upstream's URL is above; the key and RELAY_KEY from --var.
  const { fakeProvider, parseCapture } = await import(join(APP, "node_modules/mmsp-streams/dist/testing/index.js"));
  const { serve } = await import(join(ROOT, "scripts/upstream.mjs"));
  const PROVIDER_KEY = "sk-ant-consumer-KEY-never-shown-4242";
  const capture = parseCapture(readFileSync(join(ROOT, "samples/providers/anthropic.sse"), "utf8"));
  const fake = fakeProvider("anthropic", { streams: { "claude-haiku-4-5": { capture, pace: 40 } }, key: PROVIDER_KEY });
  const fakeServer = await serve(fake, { port: 0, host: "127.0.0.1" });
  const APP_P = join(TMP, "app-providers");
  mkdirSync(APP_P);
  symlinkSync(join(APP, "node_modules"), join(APP_P, "node_modules"));
  writeFileSync(join(APP_P, "package.json"), JSON.stringify({ name: "my-provider-relay", private: true, type: "module" }, null, 2));
  const PROVIDER_WORKER = `import { anthropic } from "mmsp-streams/providers";
import { createRelay } from "mmsp-streams/relay";

const relay = createRelay<{ ANTHROPIC_API_KEY: string }>({
  models: (env) => ({
    "claude-fast": { provider: anthropic({ apiKey: env.ANTHROPIC_API_KEY, baseURL: "${fakeServer.url}" }), model: "claude-haiku-4-5" },
  }),
});
export const RelayStream = relay.StreamObject;
export const QuotaObject = relay.QuotaObject; // binding QUOTAS
export default relay;
`;
  writeFileSync(join(APP_P, "worker.ts"), PROVIDER_WORKER);
  writeFileSync(join(APP_P, "wrangler.toml"), TOML.replace('name = "my-relay"', 'name = "my-provider-relay"'));
  let stopProviders = async () => {};
  try {
    let pbase;
    await check("the provider form of the Worker starts under wrangler dev (the key and RELAY_KEY as variables)", async () => {
      const dev = await startWranglerDev({
        cwd: APP_P,
        logPath: join(TMP, "wrangler-providers.log"),
        persistTo: join(TMP, "state-providers"),
        vars: { ANTHROPIC_API_KEY: PROVIDER_KEY, RELAY_KEY: "relay-consumer-key" },
        ready: async (b) => (await fetch(`${b}/v1/models`, { headers: { "x-relay-key": "relay-consumer-key" } })).status === 200,
      });
      stopProviders = dev.stop;
      pbase = dev.base;
      return pbase;
    });
    if (!pbase) {
      throw new Error(`wrangler dev (providers) did not start:\n${readFileSync(join(TMP, "wrangler-providers.log"), "utf8").slice(-3000)}`);
    }
    const received = [];
    const keep = async (res) => {
      const text = await res.text();
      received.push(JSON.stringify([...res.headers]), text);
      return new Response(text, { status: res.status, headers: res.headers });
    };
    const ask = (init = {}) =>
      fetch(`${pbase}/v1/stream`, {
        method: "POST",
        headers: { "content-type": "application/json", "x-relay-key": "relay-consumer-key", ...init.headers },
        body: JSON.stringify({
          model: "claude-fast",
          messages: [{ role: "user", content_items: [{ type: "text.done", text: "Hi" }] }],
          ...init.extra,
        }),
        signal: init.signal,
      });
    await check("provider form: a stream served by the provider (x-mmsp-provider), resumed after a cut, one provider request", async () => {
      const controller = new AbortController();
      const res = await ask({ signal: controller.signal });
      if (res.status !== 200) throw new Error(`status ${res.status}: ${await res.text()}`);
      assert(res.headers.get("x-mmsp-provider") === "anthropic", `x-mmsp-provider ${res.headers.get("x-mmsp-provider")}`);
      const location = res.headers.get("content-location");
      const first = await readSse(res, { stopAfter: 5, controller });
      // (RELAY_KEY guards reads and DELETE as it guards creating)
      const resumed = await fetch(`${pbase}${location}`, { headers: { "x-relay-key": "relay-consumer-key", "last-event-id": String(first.events.at(-1).id) } });
      const rest = await readSse(await keep(resumed));
      const all = [...first.events, ...rest.events];
      received.push(JSON.stringify(all));
      assert(rest.done && all.every((e, i) => e.id === i), `ids ${all.map((e) => e.id).join(",")}`);
      assert(all.at(-1).data.finish_reason === "stop", `the end: ${JSON.stringify(all.at(-1).data)}`);
      assert(fake.requests.length === 1 && fake.requests[0].authorized, `provider requests: ${fake.requests.length}`);
      return `${first.events.length} + ${rest.events.length} events`;
    });
    await check("provider form: DELETE aborts the provider's request within a second", async () => {
      const res = await ask();
      const location = res.headers.get("content-location");
      const reading = readSse(res);
      await sleep(300);
      const t = Date.now();
      const del = await fetch(`${pbase}${location}`, { method: "DELETE", headers: { "x-relay-key": "relay-consumer-key" } });
      assert(del.status === 204, `DELETE status ${del.status}`);
      const request = fake.requests.at(-1);
      for (let i = 0; i < 40 && request.aborted === null; i++) await sleep(50);
      assert(request.aborted !== null, "the provider's request was not aborted");
      const ms = request.at + request.aborted - t;
      assert(ms <= 1000, `aborted ${ms} ms after the DELETE`);
      const viewer = await reading;
      received.push(JSON.stringify(viewer.events));
      assert(
        viewer.events.at(-1)?.data?.error?.type === "StreamCancelled",
        `the viewer ended with ${JSON.stringify(viewer.events.at(-1))}`,
      );
      return `aborted ${ms} ms after the DELETE`;
    });
    await check(
      "provider form: closed without the key (401), unknown model (404), GET /v1/models; the key in no byte a client or the log got",
      async () => {
        const closed = await keep(await ask({ headers: { "x-relay-key": "wrong" } }));
        assert(closed.status === 401, `without the key: ${closed.status}`);
        const unknown = await keep(await ask({ extra: { model: "nope" } }));
        assert(unknown.status === 404 && (await unknown.text()).includes("claude-fast"), `unknown model: ${unknown.status}`);
        const models = await keep(await fetch(`${pbase}/v1/models`, { headers: { "x-relay-key": "relay-consumer-key" } }));
        assert((await models.json()).data[0].id === "claude-fast", "GET /v1/models");
        const log = readFileSync(join(TMP, "wrangler-providers.log"), "utf8");
        assert(!received.join("\n").includes(PROVIDER_KEY) && !log.includes(PROVIDER_KEY), "the provider key reached a client or the log");
      },
    );
  } finally {
    await stopProviders();
    await fakeServer.close?.();
  }
} finally {
  await stop();
  upstream.close();
  if (process.env.KEEP) console.log(`kept ${TMP}`);
  else rmSync(TMP, { recursive: true, force: true });
}

const passed = results.filter(Boolean).length;
console.log(`relay-consumer: ${passed} passed, ${results.length - passed} failed (${((performance.now() - t0) / 1000).toFixed(1)} s)`);
process.exit(passed === results.length && passed > 0 ? 0 : 1);
