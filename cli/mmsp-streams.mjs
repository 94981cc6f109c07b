#!/usr/bin/env node
// mmsp-streams: inspect or convert an MMSP event stream (a capture, stdin, a live server or a
// built-in sample). Node-only; it uses the built package (`npm run build` makes ../dist).
import { once } from "node:events";
import { readFileSync } from "node:fs";
import { relative } from "node:path";
import { parseArgs } from "node:util";
import {
  byteCounter,
  ConnectError,
  DEFAULT_SAMPLE,
  endpoint,
  InputError,
  isUrl,
  listSamples,
  openLocal,
  pacer,
  request,
  samplePath,
  sniff,
  sourceLabel,
  UsageError,
} from "./input.mjs";
import { clean, describeError, describeOther, errorJson, LiveRenderer, makeStyle, plural, summary, wantsColor } from "./render.mjs";

const HELP = `mmsp-streams: read an MMSP event stream (SSE or NDJSON) and show or re-encode it

Usage:
  mmsp-streams                          inspect the default built-in sample (${DEFAULT_SAMPLE})
  mmsp-streams inspect [FILE|URL|-]     show a stream live as it arrives, then the message
  mmsp-streams convert --to ndjson|sse [FILE|URL|-]
                                        re-encode a stream to stdout, checking it on the way
  mmsp-streams inspect --from PROVIDER FILE
                                        read a provider's own stream (a capture of its SSE body):
                                        PROVIDER is openai-chat or anthropic; --to with convert
                                        writes the MMSP stream it makes
  mmsp-streams --list-samples           list the built-in samples
  mmsp-streams record URL -d BODY > FILE.capture
                                        POST BODY to URL, write the answer as a capture file
                                        (mmsp-streams/testing; mmsp-streams record --help)

Input:
  FILE                  a capture, SSE or NDJSON (told apart by its first non-blank bytes:
                        "data:", ":", "event:" mean SSE, "{" means NDJSON)
  -                     read the capture from stdin
  URL                   POST a request to a live MMSP server and read its answer
                        (a URL ending in /v1 gets /stream appended)
  --sample NAME         a built-in sample (see --list-samples); the default input of inspect

Options:
  --to ndjson|sse       convert: the output format
  --format sse|ndjson   the input format, instead of detecting it (or of the server's Content-Type)
  --from PROVIDER       the input is that provider's own streaming body (FILE or -), not MMSP:
                        it is converted to UniEvents as mmsp-streams/providers does
  --assemble            the input carries bare fragments (several per event, item ids, stop in
                        pieces): build the public stream from them (assemble mode)
  --model MODEL         URL: the model to ask (required with a URL)
  --prompt TEXT         URL: the user message (default "Hello!")
  --key KEY             URL: sent as "Authorization: Bearer KEY" (default: $MMSP_API_KEY)
  --timeout MS          URL: fail when the server sends nothing (not even a keep-alive) for this
                        long, before or during the stream (default 60000)
  --delay MS            inspect: wait MS milliseconds between the events of a file, stdin or a
                        sample, to watch it stream (default: 25 for a sample shown on a terminal, else 0)
  --json                inspect: print one JSON document for scripts instead, when the stream ends:
                        {"events": [...], "message": {...} | null, "error": null | {"name", "message",
                        "rule", "eventIndex", "byteOffset", "preview", "hint", ...}, "read": {...,
                        "timings": {"firstByteAt", "firstEventAt", "firstContentAt", "stopAt" (ms
                        of performance.now()), "characters", "charactersPerSecond"}}}
                        (bytes as base64); same exit status
  --list-samples        list the built-in samples
  -h, --help            this help
  --version             the package version

Output: colours when stdout is a terminal and NO_COLOR is unset; FORCE_COLOR=1 forces them (even
into a pipe), FORCE_COLOR=0 turns them off. Errors go to stderr. When a stream fails before its first
event, a "hint" line says what the bytes were (an HTML page, a JSON document, the wrong format,
compressed bytes, another provider's stream…).
Exit status: 0 the stream was read to its stop event; 1 the stream failed (a protocol violation,
an upstream error, an unreachable server); 2 a usage error (bad options, unknown sample, no such file).
`;

const OPTIONS = {
  help: { type: "boolean", short: "h" },
  version: { type: "boolean" },
  to: { type: "string" },
  format: { type: "string" },
  assemble: { type: "boolean" },
  from: { type: "string" },
  model: { type: "string" },
  prompt: { type: "string" },
  key: { type: "string" },
  delay: { type: "string" },
  timeout: { type: "string" },
  sample: { type: "string" },
  json: { type: "boolean" },
  "list-samples": { type: "boolean" },
};

const FORMATS = ["sse", "ndjson"];

async function loadPackage() {
  try {
    return { ...(await import("../dist/index.js")), providers: await import("../dist/providers/index.js") };
  } catch (e) {
    if (e?.code === "ERR_MODULE_NOT_FOUND" && /dist[\\/]index\.js/.test(e.message)) {
      throw new UsageError("the package is not built: run `npm run build` first");
    }
    throw e;
  }
}

/** Parses the command line into a plan; throws UsageError. */
function parse(argv) {
  let parsed;
  try {
    parsed = parseArgs({ args: argv, options: OPTIONS, allowPositionals: true, strict: true });
  } catch (e) {
    throw new UsageError(e.message);
  }
  const { values: o, positionals } = parsed;
  if (o.help) return { command: "help" };
  if (o.version) return { command: "version" };
  if (o["list-samples"]) return { command: "list" };
  let [command, source, ...extra] = positionals;
  command ??= "inspect";
  if (command === "help") return { command: "help" };
  if (command !== "inspect" && command !== "convert") {
    throw new UsageError(`unknown command "${command}" (commands: inspect, convert; for a file: mmsp-streams inspect ${command})`);
  }
  if (extra.length) throw new UsageError(`too many arguments: ${extra.join(" ")}`);
  if (source !== undefined && o.sample !== undefined) throw new UsageError("give either an input or --sample, not both");
  if (o.format !== undefined && !FORMATS.includes(o.format)) throw new UsageError(`--format must be sse or ndjson, not "${o.format}"`);

  if (command === "convert") {
    if (o.to === undefined) throw new UsageError("convert needs --to ndjson or --to sse");
    if (!FORMATS.includes(o.to)) throw new UsageError(`--to must be ndjson or sse, not "${o.to}"`);
    if (source === undefined && o.sample === undefined) {
      throw new UsageError("convert needs an input: FILE, URL, - (stdin) or --sample NAME");
    }
    if (o.delay !== undefined) throw new UsageError("--delay is for inspect");
    if (o.json) throw new UsageError("--json is for inspect");
  } else if (o.to !== undefined) throw new UsageError("--to is for convert");

  const url = source !== undefined && isUrl(source);
  if (o.from !== undefined) {
    if (url || source === undefined) throw new UsageError("--from reads a provider's capture: give a FILE or - (stdin)");
    for (const name of ["format", "assemble"]) {
      if (o[name] !== undefined) throw new UsageError(`--${name} is not for --from (a provider's stream is its own SSE)`);
    }
  }
  for (const name of ["model", "prompt", "key"]) {
    if (o[name] !== undefined && !url) throw new UsageError(`--${name} is only for a URL input`);
  }
  if (url && !o.model) throw new UsageError("a URL input needs --model");
  if (url && o.delay !== undefined) throw new UsageError("--delay is for a file, stdin or a sample");
  if (o.timeout !== undefined && !url) throw new UsageError("--timeout is only for a URL input");
  let timeout = 60_000;
  if (o.timeout !== undefined) {
    timeout = Number(o.timeout);
    if (!(timeout > 0)) throw new UsageError(`--timeout must be a positive number of milliseconds, not "${o.timeout}"`);
  }

  let delay;
  if (o.delay !== undefined) {
    delay = Number(o.delay);
    if (!Number.isFinite(delay) || delay < 0) throw new UsageError(`--delay must be a number of milliseconds, not "${o.delay}"`);
  }
  const sample = source === undefined ? (o.sample ?? DEFAULT_SAMPLE) : undefined;
  return {
    command,
    source: sample !== undefined ? samplePath(sample) : source,
    sample,
    url,
    to: o.to,
    format: o.format,
    mode: o.assemble ? "assemble" : "validate",
    from: o.from,
    model: o.model,
    prompt: o.prompt ?? "Hello!",
    key: o.key ?? process.env.MMSP_API_KEY,
    delay,
    timeout,
    json: Boolean(o.json),
  };
}

/**
 * Opens the input and wires the reader: checked UniEvents, the message, and how many bytes passed.
 * @returns {Promise<{ readable: ReadableStream<any>, message: PromiseLike<any>, timings: () => any, counter: { bytes: number, head(): Uint8Array }, format: string, contentType?: string | null }>}
 */
async function open(plan, lib, { pace, note }) {
  const counter = byteCounter();
  const client = plan.sample !== undefined ? `${plan.sample} sample` : sourceLabel(plan.source);
  const options = { client, mode: plan.mode };
  if (plan.url) {
    note(`POST ${endpoint(plan.source).href}  model=${plan.model}`);
    // Until the answer's headers come, a timer; then the reader's idle time-out takes over.
    const answered = new AbortController();
    const timer = setTimeout(() => answered.abort(new Error(`the server did not answer within ${plan.timeout} ms`)), plan.timeout);
    let response;
    try {
      response = await request(plan.source, { ...plan, signal: answered.signal });
    } finally {
      clearTimeout(timer);
    }
    const type = response.headers.get("content-type");
    note(`HTTP ${response.status} ${type ?? "(no content type)"}`);
    let body = response.body ?? new ReadableStream({ start: (c) => c.close() });
    let format = plan.format ?? lib.formatFromContentType(type);
    if (response.ok && format === undefined) ({ format, stream: body } = await sniff(body));
    const nullBody = [204, 205, 304].includes(response.status); // a Response with these statuses can have no body
    const counted = new Response(nullBody ? null : body.pipeThrough(counter), { status: response.status, headers: response.headers });
    // no format named or seen: the reader decides ("auto"), and says what the bytes were if they are no stream
    const answer = lib.fromResponse(counted, { ...options, format: format ?? "auto", idleTimeoutMs: plan.timeout });
    const { readable, message } = answer;
    return { readable, message, timings: () => answer.timings, counter, format: format ?? "auto", contentType: type };
  }
  if (plan.from !== undefined) return openProvider(plan, lib, { pace, note }, counter);
  let { format, stream } = await sniff(await openLocal(plan.source));
  format = plan.format ?? format;
  // Bytes that are neither format go to the reader all the same ("auto"): it says what they were (an
  // HTML page, compressed bytes…), so a file and a URL with the same bytes get the same diagnosis.
  if (format === undefined) format = "auto";
  const shown = plan.sample !== undefined
    ? `sample "${plan.sample}" (${relative(process.cwd(), plan.source)})`
    : plan.source === "-"
    ? "stdin"
    : plan.source;
  note(`${shown}: ${format}${plan.mode === "assemble" ? ", assemble mode" : ""}`);
  let bytes = stream.pipeThrough(counter);
  if (pace > 0) bytes = bytes.pipeThrough(pacer(pace, format));
  const reader = new lib.UniEventStream({ ...options, format });
  return { readable: bytes.pipeThrough(reader), message: reader.message, timings: () => reader.timings, counter, format };
}

/** `--from PROVIDER`: a provider's capture through ProviderEventStream (mmsp-streams/providers). */
async function openProvider(plan, lib, { pace, note }, counter) {
  let reader;
  try {
    reader = new lib.providers.ProviderEventStream(plan.from);
  } catch (e) {
    if (e instanceof RangeError || e instanceof TypeError) {
      throw new UsageError(`--from: ${e.message.replace(/^ProviderEventStream: the provider /, "")}`);
    }
    throw e;
  }
  note(`${plan.source === "-" ? "stdin" : plan.source}: ${plan.from} stream`);
  let bytes = (await openLocal(plan.source)).pipeThrough(counter);
  if (pace > 0) bytes = bytes.pipeThrough(pacer(pace, "sse"));
  return {
    readable: bytes.pipeThrough(reader),
    message: reader.message,
    timings: () => reader.timings,
    counter,
    format: `${plan.from} sse`,
  };
}

/** Bytes (inline data) as base64 in JSON, as on the wire. */
const bytesAsBase64 = (_key, value) => (value instanceof Uint8Array ? Buffer.from(value).toString("base64") : value);

/** `inspect --json`: one JSON document when the stream ends, for scripts. */
async function inspectJson(plan, lib) {
  const events = [];
  let opened;
  let message = null;
  let error = null;
  try {
    opened = await open(plan, lib, { pace: plan.delay ?? 0, note: () => {} });
    for await (const event of opened.readable) events.push(event);
    message = await opened.message;
  } catch (e) {
    if (e instanceof UsageError) throw e;
    error = errorJson(e, lib, {});
  }
  // timings: the reader's (performance.now() ms, see StreamTimings), relative figures are the differences
  const read = opened ? { events: events.length, bytes: opened.counter.bytes, format: opened.format, timings: opened.timings() } : null;
  const json = JSON.stringify({ events, message, error, read }, bytesAsBase64);
  if (!process.stdout.write(`${json}\n`)) await once(process.stdout, "drain");
  return error ? 1 : 0;
}

async function inspect(plan, lib) {
  if (plan.json) return inspectJson(plan, lib);
  const color = wantsColor(process.stdout);
  const s = makeStyle(color);
  const tty = Boolean(process.stdout.isTTY);
  const pace = plan.delay ?? (plan.sample !== undefined && tty ? 25 : 0);
  const renderer = new LiveRenderer(process.stdout, { color, live: tty });
  const started = performance.now();
  let opened;
  try {
    opened = await open(plan, lib, { pace, note: (line) => process.stdout.write(`${s.dim(clean(line))}\n`) });
    for await (const event of opened.readable) renderer.event(event);
    const message = await opened.message;
    renderer.finish();
    const seconds = (performance.now() - started) / 1000;
    const stats = { events: renderer.events, bytes: opened.counter.bytes, format: opened.format, seconds, timings: opened.timings() };
    process.stdout.write(summary(message, stats, color));
    return 0;
  } catch (e) {
    renderer.finish();
    if (e instanceof UsageError) throw e;
    report(e, lib, {});
    if (opened) process.stderr.write(`  after ${plural(renderer.events, "event")} and ${plural(opened.counter.bytes, "byte")}\n`);
    return 1;
  }
}

async function convert(plan, lib) {
  let opened;
  let events = 0;
  try {
    opened = await open(plan, lib, { pace: 0, note: () => {} });
    const encoder = plan.to === "sse" ? new lib.SseEncoderStream() : new lib.NdjsonEncoderStream();
    const counted = new TransformStream({ transform: (event, c) => (events++, c.enqueue(event)) });
    // A stream that fails is written up to the failure, then its error as an error event (as an
    // MMSP server does); the failure itself is reported on stderr and in the exit status.
    for await (const chunk of opened.readable.pipeThrough(counted).pipeThrough(encoder)) {
      if (!process.stdout.write(chunk)) await once(process.stdout, "drain");
    }
    await opened.message;
    return 0;
  } catch (e) {
    if (e instanceof UsageError) throw e;
    report(e, lib, {});
    return 1;
  }
}

function report(e, lib, extra = {}) {
  const color = wantsColor(process.stderr);
  if (e instanceof lib.MmspError) process.stderr.write(describeError(e, color, lib, extra));
  else if (e instanceof ConnectError || e instanceof InputError) process.stderr.write(describeOther(e, color));
  else process.stderr.write(describeOther(e, color, { stack: true }));
}

function listing() {
  const samples = listSamples();
  const width = Math.max(...samples.map((x) => x.name.length));
  const lines = samples.map((x) => `  ${x.name.padEnd(width)}  ${x.description}${x.name === DEFAULT_SAMPLE ? " [default]" : ""}`);
  return `built-in samples (mmsp-streams --sample NAME, files in samples/):\n${lines.join("\n")}\n`;
}

async function main(argv) {
  process.stdout.on("error", (e) => {
    if (e.code === "EPIPE") process.exit(process.exitCode ?? 0); // the reader went away (`| head`)
    throw e;
  });
  try {
    if (argv[0] === "record") return await (await import("./record.mjs")).recordCommand(argv.slice(1));
    const plan = parse(argv);
    switch (plan.command) {
      case "help":
        process.stdout.write(HELP);
        return 0;
      case "version":
        process.stdout.write(`${JSON.parse(readFileSync(new URL("../package.json", import.meta.url), "utf8")).version}\n`);
        return 0;
      case "list":
        process.stdout.write(listing());
        return 0;
    }
    const lib = await loadPackage();
    return plan.command === "convert" ? await convert(plan, lib) : await inspect(plan, lib);
  } catch (e) {
    if (!(e instanceof UsageError)) throw e;
    process.stderr.write(`mmsp-streams: ${e.message}\n(mmsp-streams --help for usage)\n`);
    return 2;
  }
}

process.exitCode = await main(process.argv.slice(2));
