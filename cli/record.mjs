// `mmsp-streams record URL > chat.capture`: POSTs a request and writes the answer as a capture
// (mmsp-streams/testing's file format: status, headers, per-event timing, the body as it came), for
// `npm run upstream` and `replay()` to serve again. Node-only; it uses the built package.
import { readFileSync } from "node:fs";
import { parseArgs } from "node:util";
import { ConnectError, UsageError } from "./input.mjs";

export const RECORD_HELP = `Usage: mmsp-streams record URL [-d BODY | -d @FILE] [options] > FILE.capture

POSTs BODY (JSON) to URL and writes the answer, whatever its status, as a capture file to stdout:
a short header (status, headers, when each event came), then the body byte for byte (base64 when
it is not UTF-8). \`npm run upstream -- MODEL=FILE.capture\` serves it again; replay() reads it.

Options:
  -d, --body BODY       the request body: JSON text, or @FILE to read it from a file
                        (default: {"model": MODEL, "messages": [a user message "Hello!"], "config": {}})
  --model MODEL         the model of the default body
  -H, --header 'N: V'   a request header (repeatable); Content-Type defaults to application/json
  --key KEY             sent as "Authorization: Bearer KEY" (default: $MMSP_API_KEY)
  --provider NAME       written into the capture: openai-chat | openai-responses | anthropic | gemini
Exit status: 0 the answer was recorded (a refusal too: its status is in the capture); 1 the
connection failed or broke; 2 a usage error.
`;

function parse(argv) {
  let parsed;
  try {
    parsed = parseArgs({
      args: argv,
      allowPositionals: true,
      options: {
        body: { type: "string", short: "d" },
        model: { type: "string" },
        header: { type: "string", short: "H", multiple: true },
        key: { type: "string" },
        provider: { type: "string" },
        help: { type: "boolean", short: "h" },
      },
    });
  } catch (e) {
    throw new UsageError(e.message);
  }
  const { values, positionals } = parsed;
  if (values.help) return { help: true };
  if (positionals.length !== 1) throw new UsageError("record needs one URL: mmsp-streams record URL -d BODY > FILE.capture");
  const url = positionals[0];
  if (!/^https?:\/\//.test(url)) throw new UsageError(`record: ${JSON.stringify(url)} is not an http(s) URL`);
  if (values.body === undefined && values.model === undefined) {
    throw new UsageError("record needs a body (-d JSON or -d @FILE) or --model for the default one");
  }
  let body = values.body?.startsWith("@") ? readFileSync(values.body.slice(1), "utf8") : values.body;
  body ??= JSON.stringify({
    model: values.model,
    messages: [{ role: "user", content_items: [{ type: "text.done", text: "Hello!" }] }],
    config: {},
  });
  const headers = new Headers({ "content-type": "application/json", accept: "text/event-stream, application/x-ndjson" });
  for (const h of values.header ?? []) {
    const colon = h.indexOf(":");
    if (colon <= 0) throw new UsageError(`-H must be "Name: value", not ${JSON.stringify(h)}`);
    headers.set(h.slice(0, colon).trim(), h.slice(colon + 1).trim());
  }
  const key = values.key ?? process.env.MMSP_API_KEY;
  if (key && !headers.has("authorization")) headers.set("authorization", `Bearer ${key}`);
  return { url, body, headers, provider: values.provider };
}

/** Runs `record`; returns the exit status (a usage error is thrown, as UsageError, for the caller to report). */
export async function recordCommand(argv) {
  try {
    return await run(argv);
  } catch (e) {
    if (!(e instanceof ConnectError)) throw e;
    process.stderr.write(`mmsp-streams record: ${e.message}\n`);
    return 1;
  }
}

async function run(argv) {
  const plan = parse(argv);
  if (plan.help) {
    process.stdout.write(RECORD_HELP);
    return 0;
  }
  let testing;
  try {
    testing = await import("../dist/testing/index.js");
  } catch {
    throw new UsageError("the package is not built: run `npm run build` first");
  }
  let response;
  try {
    response = await fetch(plan.url, { method: "POST", headers: plan.headers, body: plan.body });
  } catch (e) {
    throw new ConnectError(`cannot reach ${plan.url}: ${e?.cause?.code ?? e?.cause?.message ?? e?.message}`);
  }
  let capture;
  try {
    capture = await testing.record(response, plan.provider ? { provider: plan.provider } : {});
  } catch (e) {
    if (e instanceof RangeError || e instanceof TypeError && /record: options/.test(e.message)) throw new UsageError(e.message);
    throw new ConnectError(`the answer broke before its end: ${e?.message ?? e}`);
  }
  process.stdout.write(testing.formatCapture(capture));
  process.stderr.write(`recorded HTTP ${capture.status}, ${capture.body.length} bytes, ${capture.timing?.length ?? 0} events\n`);
  return 0;
}
