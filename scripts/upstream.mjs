#!/usr/bin/env node
// `npm run upstream`: a fake MMSP server (mmsp-streams/testing's fakeMmspServer), or a fake provider
// API, on a port, for local work: the relay's `npm run dev` relays to it, and the repository's own
// checks (scripts/load.mjs, relay-consumer.mjs, ai-sdk-chat-check.mjs, test/relay/run.mjs) serve
// their streams with it. It answers from the built-in samples (samples/*.sse, as `sample-<name>`)
// or from the capture files given.
//
//   npm run upstream                                   the samples on http://127.0.0.1:25752/v1
//   npm run upstream -- --port 9000 --key sk-test      another port; requests must carry the key
//   npm run upstream -- my-model=chat.capture          a capture file as the model "my-model"
//   npm run upstream -- --provider anthropic m=a.capture   Anthropic's API (POST /v1/messages)
//   npm run upstream -- --pace 20 --cut-after-events 5 faults on every answer (see --help)
//
// As a module: serve(handler, { port, host }) puts any fetch-shaped handler on node:http (the kit's
// serve, mmsp-streams/testing), and sampleStreams() reads the samples as captures.
import { readdirSync, readFileSync } from "node:fs";
import http from "node:http";
import { basename, extname } from "node:path";
import { parseArgs } from "node:util";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("../", import.meta.url));
const testing = () => import(new URL("../dist/testing/index.js", import.meta.url).href);

/** The built-in samples as captures: `sample-<file>` for each, and `sample-tools` (the relay's name for tool-call). */
export async function sampleStreams() {
  const { parseCapture } = await testing();
  const streams = {};
  for (const file of readdirSync(`${root}samples`).filter((f) => f.endsWith(".sse")).sort()) {
    streams[`sample-${basename(file, ".sse")}`] = parseCapture(readFileSync(`${root}samples/${file}`, "utf8"));
  }
  streams["sample-tools"] = streams["sample-tool-call"];
  return streams;
}

/**
 * Serves `handler` ((request) => Promise<Response>) on node:http: the kit's own `serve`
 * (mmsp-streams/testing), given Node's http module. Resolves to { url, port, close }.
 */
export async function serve(handler, { port = 0, host = "127.0.0.1" } = {}) {
  const { serve: kitServe } = await testing();
  return kitServe(handler, { port, hostname: host, http });
}

const HELP = `npm run upstream [-- options] [MODEL=FILE ...]

A fake MMSP server (POST /v1/stream, GET /v1/models, resume by Last-Event-ID at the answer's
Content-Location, DELETE to stop), or with --provider a fake provider API, answering from the
built-in samples (sample-chat, sample-tools, …) or the capture files given (MODEL=FILE, or FILE
alone: the model is the file's name without its extension). A capture file is what
\`mmsp-streams record URL > file.capture\` writes, or a bare .sse / .ndjson body.

Options:
  --port N                 the port (default 25752, MMSP's; 0: any free one)
  --host HOST              the address to listen on (default 127.0.0.1)
  --key KEY                requests must carry this key (in the server's own header)
  --provider NAME          openai-chat | openai-responses | anthropic | gemini (captures given)
  --pace N                 events per second (or "capture": the files' own timing)
  --chunking HOW           events | random | bytes | a size in bytes
  --seed N                 the seed of --chunking random
  --cut-after-events N     every first answer breaks after N events (a resume gets the rest)
  --error-at N             event N becomes an error event
  --refuse STATUS          every request is refused with this status
`;

async function main() {
  const { values, positionals } = parseArgs({
    allowPositionals: true,
    options: {
      port: { type: "string", default: "25752" },
      host: { type: "string", default: "127.0.0.1" },
      key: { type: "string" },
      provider: { type: "string" },
      pace: { type: "string" },
      chunking: { type: "string" },
      seed: { type: "string" },
      "cut-after-events": { type: "string" },
      "error-at": { type: "string" },
      refuse: { type: "string" },
      help: { type: "boolean", short: "h" },
    },
  });
  if (values.help) return void process.stdout.write(HELP);
  const { fakeMmspServer, fakeProvider, parseCapture } = await testing();
  const number = (v) => (v === undefined ? undefined : Number(v));
  const faults = {
    pace: values.pace === "capture" ? "capture" : number(values.pace),
    chunking: values.chunking === undefined || /^[a-z]+$/.test(values.chunking) ? values.chunking : Number(values.chunking),
    seed: number(values.seed),
    cutAfterEvents: number(values["cut-after-events"]),
    errorAt: number(values["error-at"]),
    refuse: number(values.refuse),
  };
  const streams = {};
  for (const arg of positionals) {
    const eq = arg.indexOf("=");
    const [model, file] = eq > 0 ? [arg.slice(0, eq), arg.slice(eq + 1)] : [basename(arg, extname(arg)), arg];
    streams[model] = { capture: parseCapture(readFileSync(file, "utf8")), ...faults };
  }
  if (positionals.length === 0) {
    if (values.provider) throw new Error("--provider needs capture files of that provider's stream (MODEL=FILE)");
    for (const [model, capture] of Object.entries(await sampleStreams())) streams[model] = { capture, ...faults };
  }
  const handler = values.provider
    ? fakeProvider(values.provider, { streams, key: values.key })
    : fakeMmspServer({ streams, key: values.key });
  const { url } = await serve(handler, { port: Number(values.port), host: values.host });
  const what = values.provider ? `a fake ${values.provider} API` : "a fake MMSP server";
  console.log(`${what} on ${url}${values.provider ? "" : "/v1"}\n  models: ${Object.keys(streams).join(", ")}`);
  if (!values.provider) console.log(`  relay to it:  MMSP_UPSTREAM=${url}/v1 npm run dev`);
  // one line per request: what a person watching wants to see
  const logged = new Set();
  setInterval(() => {
    for (const r of handler.requests) {
      if (logged.has(r)) continue;
      logged.add(r);
      r.ended.then((how) => console.log(`${r.method} ${new URL(r.url).pathname}${r.model ? ` (${r.model})` : ""} → ${r.status}, ${how}`));
    }
  }, 200);
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  main().catch((e) => {
    console.error(`npm run upstream: ${e.message}`);
    process.exit(1);
  });
}
