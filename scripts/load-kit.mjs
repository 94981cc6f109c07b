// What the load runs (scripts/load.mjs, scripts/load-faults.mjs) and the relay's process tests
// (test/relay/process-kill.mjs, test/relay/quotas.mjs) share, written once: the command line's flags
// and numbers, the run's deadline, a provider's answer as Anthropic streams it, the ledger read until
// it counts every request, and the checks counted and printed, ending with "<label>: N passed, N failed".

/** The command line's `--name` flags and `--name <number>` options. */
export function commandLine(args = process.argv.slice(2)) {
  return {
    flag: (name) => args.includes(`--${name}`),
    option: (name, fallback) => {
      const i = args.indexOf(`--${name}`);
      return i >= 0 && args[i + 1] !== undefined ? Number(args[i + 1]) : fallback;
    },
  };
}

/** Exits 2, saying why, unless each `[name, value, min, max]` is a number (`whole`: a whole number) from min to max. */
export function inRanges(ranges, { whole = false } = {}) {
  for (const [name, v, min, max] of ranges) {
    if (!(v >= min && v <= max && (!whole || Number.isInteger(v)))) {
      console.error(`--${name} must be a ${whole ? "whole number" : "number"} from ${min} to ${max}, not ${v}`);
      process.exit(2);
    }
  }
}

/** Ends the run as failed after `seconds` (`stopAll` first); clear the timer it returns once the run is done. */
export function deadline(label, seconds, stopAll) {
  return setTimeout(async () => {
    console.log(`${label}: stopped after --timeout ${seconds} s`);
    console.log(`${label}: 0 passed, 1 failed`);
    await stopAll();
    process.exit(1);
  }, seconds * 1000);
}

/**
 * A capture of Anthropic's streamed answer (the kit's fakes take it): message `id`, one text block of
 * `texts` (one delta each), the input `input` at message_start, the output `output` and `stop` at message_delta.
 */
export function anthropicCapture({ id, texts, input, output = texts.length, stop = "end_turn" }) {
  const records = [
    {
      type: "message_start",
      message: { id, type: "message", role: "assistant", content: [], usage: { input_tokens: input, output_tokens: 1 } },
    },
    { type: "content_block_start", index: 0, content_block: { type: "text", text: "" } },
    ...texts.map((text) => ({ type: "content_block_delta", index: 0, delta: { type: "text_delta", text } })),
    { type: "content_block_stop", index: 0 },
    { type: "message_delta", delta: { stop_reason: stop }, usage: { output_tokens: output } },
    { type: "message_stop" },
  ];
  const body = records.map((e) => `event: ${e.type}\ndata: ${JSON.stringify(e)}\n\n`).join("");
  return { status: 200, headers: [["content-type", "text/event-stream"]], body: new TextEncoder().encode(body) };
}

/**
 * The stream's own model id in a request the Worker sent its provider: the load runs send it as the
 * user's text (the Worker's rows ask the provider for one model id), so that the kit's fake answers each stream its own.
 */
export const ownModel = (json) => json.messages?.[0]?.content?.[0]?.text ?? json.messages?.[0]?.content ?? json.model;

/** `request` (its body read as `json`) sent on as the same POST for `model`, its signal kept. */
export const askingFor = (request, json, model) =>
  new Request(request.url, { method: "POST", headers: request.headers, body: JSON.stringify({ ...json, model }), signal: request.signal });

/** GET /v1/usage?all=1 at `base` with the admin key, as a `read` for `ledgerCounting`: the rows `keep` keeps ([] when not answered 200). */
export const allUsage = (base, adminKey, keep) => async () => {
  const answer = await fetch(`${base}/v1/usage?all=1`, { headers: { "x-relay-key": adminKey } }).catch(() => null);
  return answer?.ok ? (await answer.json()).data.filter(keep) : [];
};

/**
 * The ledger's rows once they count `requests` requests (a stream is settled in its object's
 * waitUntil, after its end): `read()` again every `everyMs` until then, or until `ms` have passed
 * (then the last rows read, for the caller's check to show).
 */
export async function ledgerCounting(read, requests, { ms = 60_000, everyMs = 100 } = {}) {
  let rows = [];
  for (const t = Date.now(); Date.now() - t < ms;) {
    rows = await read();
    if (rows.reduce((n, r) => n + r.requests, 0) >= requests) break;
    await new Promise((r) => setTimeout(r, everyMs));
  }
  return rows;
}

/**
 * The run's checks as `check(ok, name)`, each counted and printed ("✓ [label] name") when it failed or
 * `shown(name)`; `finish(t0)` prints "<label>: N passed, N failed (ms since t0)" and exits 0 when none failed.
 */
export function checks(label, shown = () => true) {
  let passed = 0;
  let failed = 0;
  return {
    check(ok, name) {
      if (ok) passed++;
      else failed++;
      if (!ok || shown(name)) console.log(`${ok ? "✓" : "✗"} [${label}] ${name}`);
    },
    finish(t0) {
      console.log(`${label}: ${passed} passed, ${failed} failed (${Math.round(performance.now() - t0)} ms)`);
      process.stdout.write("", () => process.exit(failed === 0 ? 0 : 1));
    },
  };
}
