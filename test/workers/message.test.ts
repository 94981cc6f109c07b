// Integration tests of the test Worker inside workerd (vitest workers project only): streamed
// request bodies through POST /message (the example Worker), and GET /selftest.
import { exports } from "cloudflare:workers";
import { expect, test } from "vitest";
import { byteStream, splitAt, utf8 } from "../harness.ts";
import { cutsInsideCharacters, SAMPLE_EVENTS, SAMPLE_MESSAGE, toNdjson, toSse } from "../cases/smoke.ts";

const worker = exports.default;

/**
 * POSTs `text` to /message as a streamed body, cut inside every multi-byte character (`whole`: as
 * one buffer; used where the Worker stops reading early, since cancelling the rest of a streamed
 * body makes workerd log the sender's harmless "Network connection lost").
 */
function post(text: string, contentType: string, whole = false): Promise<Response> {
  const bytes = utf8(text);
  const body = byteStream(splitAt(bytes, cutsInsideCharacters(bytes)));
  return worker.fetch(
    new Request("http://worker.test/message", {
      method: "POST",
      headers: { "content-type": contentType },
      body: whole ? bytes : body,
      duplex: "half",
    } as RequestInit),
  );
}

const delta = (item: Record<string, unknown>) => ({
  role: "assistant", event_type: "delta", content_items: [item], usage_metadata: null, finish_reason: null,
});
const stop = {
  role: "assistant", event_type: "stop", content_items: [], finish_reason: "stop",
  usage_metadata: { cached_tokens: null, prompt_tokens: 3, thoughts_tokens: 0, response_tokens: 5 },
};

test("runs inside workerd", () => {
  expect(navigator.userAgent).toBe("Cloudflare-Workers");
});

test("POST /message, SSE body streamed in chunks split inside characters → the message", async () => {
  const res = await post(toSse(SAMPLE_EVENTS), "text/event-stream; charset=utf-8");
  expect(res.status).toBe(200);
  expect(res.headers.get("content-type")).toMatch(/^application\/json/);
  expect(await res.json()).toEqual(JSON.parse(JSON.stringify(SAMPLE_MESSAGE)));
});

test("POST /message, NDJSON body → the same message", async () => {
  const res = await post(toNdjson(SAMPLE_EVENTS), "application/x-ndjson");
  expect(res.status).toBe(200);
  expect(await res.json()).toEqual(JSON.parse(JSON.stringify(SAMPLE_MESSAGE)));
});

test("POST /message, inline bytes come back as base64", async () => {
  const events = [
    delta({ type: "inline_data.delta", data: "AAEC", mime_type: "image/png" }),
    delta({ type: "inline_data.delta", data: "/w==", mime_type: "image/png" }),
    delta({ type: "inline_data.done", data: "AAEC/w==", mime_type: "image/png" }),
    stop,
  ];
  const res = await post(toSse(events), "text/event-stream");
  expect(res.status).toBe(200);
  expect(await res.json()).toEqual({
    role: "assistant",
    content_items: [{ type: "inline_data.done", data: "AAEC/w==", mime_type: "image/png" }],
    usage_metadata: stop.usage_metadata,
    finish_reason: "stop",
  });
});

test("POST /message, a broken stream (interleaved groups) → 422 with the rule", async () => {
  const events = [delta({ type: "text.delta", text: "Grüße " }), delta({ type: "thinking.delta", thinking: "hmm" }), stop];
  for (const [text, type] of [[toSse(events), "text/event-stream"], [toNdjson(events), "application/x-ndjson"]]) {
    const res = await post(text!, type!, true);
    expect(res.status).toBe(422);
    const { error } = (await res.json()) as { error: Record<string, unknown> };
    expect(error).toMatchObject({ type: "StreamProtocolError", rule: "NO-INTERLEAVE", eventIndex: 1 });
    expect(error.message).toMatch(/^upstream broke the streaming protocol: /);
  }
});

test("POST /message, a truncated stream (no stop event) → 422 STOP-LAST", async () => {
  const res = await post(toSse(SAMPLE_EVENTS.slice(0, 5)).replace("data: [DONE]\n\n", ""), "text/event-stream");
  expect(res.status).toBe(422);
  expect(((await res.json()) as { error: { rule: string } }).error.rule).toBe("STOP-LAST");
});

test("POST /message, an event after the stop event → 422 STOP-LAST (the body is read to its end)", async () => {
  const events = [...SAMPLE_EVENTS, delta({ type: "text.delta", text: "late" })];
  const res = await post(toSse(events), "text/event-stream", true);
  expect(res.status).toBe(422);
  expect(((await res.json()) as { error: unknown }).error).toMatchObject({ rule: "STOP-LAST", eventIndex: SAMPLE_EVENTS.length });
});

test("POST /message without a known Content-Type → 415", async () => {
  const res = await post(toSse(SAMPLE_EVENTS), "text/plain", true);
  expect(res.status).toBe(415);
});

// The shared cases in SELFTEST_PARTS requests, each with its own time-out (issue #48: one request for
// them all ran past 60 s on a machine whose load was 4): a busy machine slows each part, fails none.
const SELFTEST_PARTS = 16;
test.each(Array.from({ length: SELFTEST_PARTS }, (_, part) => part))(`GET /selftest?part=%i&of=${SELFTEST_PARTS} runs its shared cases inside the Worker`, async (part) => {
  const res = await worker.fetch(new Request(`http://worker.test/selftest?part=${part}&of=${SELFTEST_PARTS}`));
  const summary = (await res.json()) as { passed: number; failed: number; runtime: string; results: { name: string; ok: boolean; error?: string }[] };
  expect(summary.runtime).toBe("Cloudflare-Workers");
  // the failures by name and error, so that a red run says which case
  expect(summary.results.filter((r) => !r.ok)).toEqual([]);
  expect(summary.failed).toBe(0);
  expect(summary.passed).toBeGreaterThan(0);
  expect(res.status).toBe(200);
}, 120_000); // a sixteenth of the shared cases, property tests included, in one request
