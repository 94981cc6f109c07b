/**
 * mmsp-streams/testing: test an app built on a stream reader against the streams that break it.
 * Record a live answer into a `Capture` (a text file you can read and diff), replay it with faults
 * (chunks split anywhere, a pace, a cut, a stall, a refusal, an error event), and serve captures
 * from a fake MMSP server or a fake provider API — each a fetch-shaped function a test calls, or a
 * Worker, Deno, Bun or Node serves. Web standards only: it runs wherever the package does.
 *
 * @example A UI's data against a stream cut after three events and resumed
 * ```ts
 * import { fromFetch } from "mmsp-streams";
 * import { fakeMmspServer, parseCapture } from "mmsp-streams/testing";
 *
 * const capture = parseCapture(
 *   'data: {"role":"assistant","event_type":"delta","content_items":[{"type":"text.delta","text":"Hi"}],"usage_metadata":null,"finish_reason":null}\n\n' +
 *     'data: {"role":"assistant","event_type":"delta","content_items":[{"type":"text.done","text":"Hi"}],"usage_metadata":null,"finish_reason":null}\n\n' +
 *     'data: {"role":"assistant","event_type":"stop","content_items":[],"usage_metadata":{"cached_tokens":null,"prompt_tokens":2,"thoughts_tokens":null,"response_tokens":1},"finish_reason":"stop"}\n\n' +
 *     "data: [DONE]\n\n",
 * );
 * const server = fakeMmspServer({ streams: { m: { capture, cutAfterEvents: 1 } } });
 * const init = { method: "POST", body: JSON.stringify({ model: "m", messages: [] }) };
 * const { message } = fromFetch("http://fake.test/v1/stream", init, { fetch: server, reconnect: { delayMs: 0 } });
 * console.log((await message).content_items, server.requests.map((r) => r.method)); // [{ type: "text.done", text: "Hi" }] ["POST", "GET"]
 * ```
 *
 * @module
 */
export { type Capture, captureFormat, formatCapture, parseCapture } from "./capture.js";
export { record, type RecordOptions } from "./record.js";
export { replay, type ReplayOptions } from "./replay.js";
export { fakeMmspServer, type FakeMmspServerOptions, type FakeStream } from "./fake-mmsp.js";
export { fakeProvider, type FakeProviderOptions } from "./fake-provider.js";
export type { AnswerEnd, FakeServer, RequestRecord } from "./request-log.js";
export { type ProblemKind, PROVIDER_ROUTES, type ProviderName, type ProviderRoute, PROVIDERS } from "./routes.js";
export { type NodeHttp, serve, type ServeConnection, type Served, type ServeOptions } from "./serve.js";
