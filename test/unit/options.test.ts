// The option checks, through what users call: a wrong type (TypeError) and a wrong value (RangeError)
// for every option of every export, near misses suggested, unknown keys refused; and the chunk and
// Response checks. Each export's options are read from its own "unknown option" message, so an
// option added to an export without bad samples here fails the first test.
import { describe, expect, test } from "vitest";
import { bytesChunkError, checkBytesChunk } from "../../src/internal/chunks.js";
import { checkOptions, checkResponse, describeValue, nearMiss } from "../../src/internal/options.js";
import { UniEventStream } from "../../src/uni-event-stream.js";
import { UniEventBatchStream } from "../../src/uni-event-batch-stream.js";
import { fromResponse } from "../../src/from-response.js";
import { fromFetch } from "../../src/from-fetch.js";
import { SseDecoderStream } from "../../src/framing/sse.js";
import { NdjsonDecoderStream } from "../../src/framing/ndjson.js";
import { MmspNdjsonDecoderStream, MmspSseDecoderStream } from "../../src/framing/mmsp.js";
import { UniEventDecoderStream } from "../../src/decode/uni-event-decoder-stream.js";
import { MessageAssemblerStream } from "../../src/assemble/message-assembler-stream.js";
import { SseEncoderStream } from "../../src/encode/sse-encoder.js";
import { NdjsonEncoderStream } from "../../src/encode/ndjson-encoder.js";
/** For each option name: a value of the wrong type, and (where a type admits wrong values) a wrong value. */
const BAD: Record<string, { type: unknown; value?: unknown }> = {
  format: { type: 5, value: "NDJSON" },
  client: { type: 42, value: "" },
  mode: { type: true, value: "assembly" },
  unknownItems: { type: false, value: "ignore" },
  onWarning: { type: "console.warn" }, // every function is a valid value
  maxEventBytes: { type: "64", value: -5 },
  maxDepth: { type: null, value: 0 },
  maxItems: { type: [], value: 2.5 },
  signal: { type: { aborted: false } }, // every AbortSignal is a valid value
  idleTimeoutMs: { type: "5s", value: -5 },
  keepAliveMs: { type: "15s", value: -1 },
  mmsp: { type: "yes", value: true }, // false only: true is MmspSseDecoderStream now
  fetch: { type: "no" },
  reconnect: { type: true, value: { retries: -1 } },
};

/** A valid setting of every option, to check that valid options pass. */
const GOOD: Record<string, unknown> = {
  format: "ndjson",
  client: "my-server",
  mode: "assemble",
  unknownItems: "skip",
  onWarning: () => {},
  maxEventBytes: 1024,
  maxDepth: Infinity,
  maxItems: 3,
  signal: new AbortController().signal,
  idleTimeoutMs: 1500,
  keepAliveMs: 0,
  mmsp: false,
  fetch: () => new Promise(() => {}),
  reconnect: { retries: 2, delayMs: 10 },
};

const thrown = (f: () => void): Error => {
  try {
    f();
  } catch (e) {
    return e as Error;
  }
  throw new Error("did not throw");
};

/** Every exported stream and function that takes options, made with them (a fetch that never answers). */
const EXPORTS: Record<string, (options: any) => unknown> = {
  UniEventStream: (o) => new UniEventStream(o),
  UniEventBatchStream: (o) => new UniEventBatchStream(o),
  fromResponse: (o) => fromResponse(new Response("data: x\n\n"), o),
  fromFetch: (o) => fromFetch("http://x.test/", {}, { fetch: () => new Promise(() => {}), ...o }),
  SseDecoderStream: (o) => new SseDecoderStream(o),
  NdjsonDecoderStream: (o) => new NdjsonDecoderStream(o),
  MmspSseDecoderStream: (o) => new MmspSseDecoderStream(o),
  MmspNdjsonDecoderStream: (o) => new MmspNdjsonDecoderStream(o),
  UniEventDecoderStream: (o) => new UniEventDecoderStream(o),
  MessageAssemblerStream: (o) => new MessageAssemblerStream(o),
  SseEncoderStream: (o) => new SseEncoderStream(o),
  NdjsonEncoderStream: (o) => new NdjsonEncoderStream(o),
};
const exports = Object.keys(EXPORTS);
const check = (name: string, options: unknown): void => void EXPORTS[name]!(options);

/** An export's options, as its message for an unknown one lists them. */
function optionsOf(name: string): string[] {
  const m = /the options are (.+)$/.exec(thrown(() => check(name, { notAnOption: 1 })).message);
  return m ? m[1]!.split(", ") : [];
}

test("every option of every export has bad samples here, so a new option cannot go untested", () => {
  expect(optionsOf("UniEventDecoderStream")).toContain("mode");
  expect(optionsOf("NdjsonEncoderStream")).toEqual([]);
  for (const name of exports) for (const key of optionsOf(name)) expect(BAD, `${name}.${key}`).toHaveProperty(key);
});

for (const name of exports) {
  describe(name, () => {
    const keys = optionsOf(name);

    for (const key of keys) {
      test(`options.${key}: a wrong type is a TypeError naming the option and the value`, () => {
        const e = thrown(() => check(name, { [key]: BAD[key]!.type }));
        expect(e).toBeInstanceOf(TypeError);
        expect(e.message).toMatch(new RegExp(`^${name}: options\\.${key} must be .+; received ${escape(describeValue(BAD[key]!.type))}`));
      });
      if ("value" in BAD[key]!)
        test(`options.${key}: a wrong value is a RangeError naming the option, the value and what is allowed`, () => {
          const e = thrown(() => check(name, { [key]: BAD[key]!.value }));
          expect(e).toBeInstanceOf(RangeError);
          // an object option names the member that is wrong (options.reconnect.retries … received -1)
          const value = BAD[key]!.value;
          const nested = typeof value === "object" && value !== null;
          const shown = nested ? escape(describeValue(Object.values(value)[0])) : escape(describeValue(value));
          expect(e.message).toMatch(new RegExp(`^${name}: options\\.${key}${nested ? "\\.[a-zA-Z]+" : ""} must be .+; received ${shown}`));
        });
    }

    test("valid options pass, and undefined (no options, or an option left undefined)", () => {
      const valid = Object.fromEntries(keys.map((k) => [k, GOOD[k]]));
      expect(() => check(name, valid)).not.toThrow();
      expect(() => check(name, undefined)).not.toThrow();
      expect(() => check(name, { [keys[0] ?? "x"]: undefined })).not.toThrow();
    });

    test("a typo in an option's name is refused, with the known options listed", () => {
      const e = thrown(() => check(name, { unknownItem: "skip" }));
      expect(e).toBeInstanceOf(TypeError);
      expect(e.message).toMatch(new RegExp(`^${name}: unknown option "unknownItem"`));
      expect(e.message).toContain(keys.length > 0 ? `the options are ${keys.join(", ")}` : `${name} takes no options`);
    });
  });
}

const escape = (s: string): string => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

describe("the messages say what was meant", () => {
  test('format: "NDJSON" names the values allowed and suggests "ndjson"', () => {
    const e = thrown(() => check("UniEventStream", { format: "NDJSON" }));
    expect(e.message).toBe('UniEventStream: options.format must be one of "sse", "ndjson", "auto"; received "NDJSON" (did you mean "ndjson"?)');
  });

  test('aliases: "jsonl" → "ndjson", "assembly" → "assemble", "ignore" → "skip"; a typo two letters off', () => {
    expect(thrown(() => check("fromResponse", { format: "jsonl" })).message).toMatch(/received "jsonl" \(did you mean "ndjson"\?\)$/);
    expect(thrown(() => check("MessageAssemblerStream", { mode: "assembly" })).message).toMatch(/received "assembly" \(did you mean "assemble"\?\)$/);
    expect(thrown(() => check("UniEventStream", { unknownItems: "ignore" })).message).toMatch(/received "ignore" \(did you mean "skip"\?\)$/);
    expect(thrown(() => check("UniEventStream", { format: "ndsjon" })).message).toMatch(/\(did you mean "ndjson"\?\)$/);
  });

  test('UniEventDecoderStream has no "auto" format, and does not suggest one', () => {
    const e = thrown(() => check("UniEventDecoderStream", { format: "detect" }));
    expect(e).toBeInstanceOf(RangeError);
    expect(e.message).toBe('UniEventDecoderStream: options.format must be one of "sse", "ndjson"; received "detect"');
  });

  test('unknownItem: suggests "unknownItems"; an option of another stage is refused', () => {
    const e = thrown(() => check("UniEventStream", { unknownItem: "skip" }));
    expect(e.message).toMatch(/^UniEventStream: unknown option "unknownItem" \(did you mean "unknownItems"\?\); the options are format, client, mode, unknownItems, onWarning, maxEventBytes, maxDepth, maxItems, signal, idleTimeoutMs$/);
    expect(thrown(() => check("NdjsonEncoderStream", { keepAliveMs: 5 })).message).toBe('NdjsonEncoderStream: unknown option "keepAliveMs"; NdjsonEncoderStream takes no options');
    expect(thrown(() => check("SseDecoderStream", { mode: "x" })).message).toMatch(/unknown option "mode"; the options are client, mmsp, maxEventBytes, signal, idleTimeoutMs$/);
    expect(thrown(() => check("MmspSseDecoderStream", { mmsp: true })).message).toMatch(/unknown option "mmsp"; the options are client, maxEventBytes, signal, idleTimeoutMs$/);
  });

  test("options that are not an object", () => {
    for (const bad of [null, "sse", 5, ["sse"]]) {
      const e = thrown(() => check("UniEventStream", bad));
      expect(e).toBeInstanceOf(TypeError);
      expect(e.message).toMatch(/^UniEventStream: options must be an object \(or left out\); received /);
    }
  });

  test("a signal passed as the options says to wrap it", () => {
    const e = thrown(() => check("UniEventStream", new AbortController().signal));
    expect(e).toBeInstanceOf(TypeError);
    expect(e.message).toBe("UniEventStream: options must be an object (or left out); received an AbortSignal (pass { signal })");
  });

  test("limits: Infinity is no limit; 0, NaN, fractions and negative numbers are not limits", () => {
    expect(() => check("UniEventStream", { maxEventBytes: Infinity, maxDepth: 1, maxItems: 100_000 })).not.toThrow();
    for (const bad of [0, NaN, 1.5, -1, -Infinity]) expect(thrown(() => check("UniEventStream", { maxDepth: bad }))).toBeInstanceOf(RangeError);
  });

  test("idleTimeoutMs: finite and within what a timer can wait", () => {
    expect(() => check("UniEventStream", { idleTimeoutMs: 0.5 })).not.toThrow();
    for (const bad of [0, Infinity, 2 ** 31, NaN]) expect(thrown(() => check("UniEventStream", { idleTimeoutMs: bad }))).toBeInstanceOf(RangeError);
  });

  test("signal: an AbortController is a TypeError that says to pass its signal", () => {
    const e = thrown(() => check("UniEventStream", { signal: new AbortController() }));
    expect(e).toBeInstanceOf(TypeError);
    expect(e.message).toBe("UniEventStream: options.signal must be an AbortSignal; received an AbortController (pass controller.signal, not the controller)");
  });

  test("mmsp: true on a general-purpose stage names the class it moved to", () => {
    const e = thrown(() => check("SseDecoderStream", { mmsp: true }));
    expect(e).toBeInstanceOf(RangeError);
    expect(e.message).toBe("SseDecoderStream: options.mmsp must be false (the MMSP reader's framing is MmspSseDecoderStream now); received true");
    expect(() => check("NdjsonDecoderStream", { mmsp: false })).not.toThrow();
  });

  test("checkOptions with an ad-hoc spec; nearMiss and describeValue", () => {
    expect(() => checkOptions("f", { a: 1 }, {})).toThrow(/^f: unknown option "a"; f takes no options$/);
    expect(nearMiss("SSE", ["sse", "ndjson"])).toBe("sse");
    expect(nearMiss("xml", ["sse", "ndjson"])).toBeUndefined();
    expect(describeValue(new Map())).toBe("a Map");
    expect(describeValue(10n)).toBe("10n");
    expect(describeValue(undefined)).toBe("undefined");
  });
});

describe("checkBytesChunk: the stages that read bytes want Uint8Array", () => {
  test("a Uint8Array passes, and a subclass of it (Node's Buffer is one)", () => {
    class NodeLikeBuffer extends Uint8Array {}
    expect(() => checkBytesChunk(new Uint8Array([1]), "UniEventStream")).not.toThrow();
    expect(() => checkBytesChunk(new NodeLikeBuffer(2), "UniEventStream")).not.toThrow();
    const NodeBuffer = (globalThis as { Buffer?: { from(s: string): Uint8Array } }).Buffer;
    if (NodeBuffer) expect(bytesChunkError(NodeBuffer.from("data: x\n\n"), "UniEventStream")).toBeUndefined();
  });

  test("a string: says the stage reads bytes, and how to fix the pipe", () => {
    const e = thrown(() => checkBytesChunk("data: {}\n\n", "UniEventStream"));
    expect(e).toBeInstanceOf(TypeError);
    expect(e.message).toMatch(/^UniEventStream reads bytes \(Uint8Array chunks\), but was given a string: remove the TextDecoderStream/);
    expect(e.message).toMatch(/response\.body/);
    expect(e.message).toMatch(/TextEncoderStream/);
  });

  test("a number, a plain object, a UniEvent, an SSE message, an ArrayBuffer, null", () => {
    expect(bytesChunkError(7, "SseDecoderStream")?.message).toMatch(/^SseDecoderStream reads bytes \(Uint8Array chunks\), but was given a number/);
    expect(bytesChunkError({ a: 1 }, "NdjsonDecoderStream")?.message).toMatch(/given an object: pipe the body's bytes in \(response\.body\)/);
    expect(bytesChunkError({ event_type: "delta", content_items: [] }, "UniEventStream")?.message).toMatch(/a UniEvent object: .*MessageAssemblerStream/);
    expect(bytesChunkError({ data: "{}" }, "UniEventStream")?.message).toMatch(/an SSE message\?\): records go into UniEventDecoderStream/);
    expect(bytesChunkError(new ArrayBuffer(4), "UniEventStream")?.message).toMatch(/given an ArrayBuffer: wrap it as new Uint8Array\(buffer\)/);
    expect(bytesChunkError(new DataView(new ArrayBuffer(4)), "UniEventStream")?.message).toMatch(/given a DataView: wrap it/);
    expect(bytesChunkError(null, "UniEventStream")).toBeInstanceOf(TypeError);
  });
});

describe("checkResponse: fromResponse wants a Response", () => {
  test("a Response passes", () => {
    expect(() => checkResponse(new Response("data: x\n\n"))).not.toThrow();
  });

  test("response.body: says to pass the Response itself", () => {
    const e = thrown(() => checkResponse(new Response("x").body));
    expect(e).toBeInstanceOf(TypeError);
    expect(e.message).toBe(
      "fromResponse: the response must be a Response (what fetch resolves to); received a ReadableStream: pass the Response itself (fromResponse(response)), or pipe a body stream through new UniEventStream()",
    );
  });

  test("a body already read (or being read) is refused at once, saying to clone", async () => {
    const used = new Response("data: x\n\n");
    await used.text();
    expect(thrown(() => checkResponse(used)).message).toBe(
      "fromResponse: the response's body was already read or is being read (response.bodyUsed); a body is read once: pass the response to fromResponse before anything else reads it, or pass response.clone() to read it twice",
    );
    const locked = new Response("data: x\n\n");
    locked.body!.getReader();
    expect(thrown(() => checkResponse(locked)).message).toMatch(/\(response\.body\.locked\)/);
    expect(() => checkResponse(new Response(null, { status: 204 }))).not.toThrow(); // no body is not a used body
  });

  test("a promise (fetch not awaited), undefined, a string", () => {
    const pending = Promise.resolve(new Response("x"));
    expect(thrown(() => checkResponse(pending)).message).toMatch(/received a Promise: await the fetch first/);
    expect(thrown(() => checkResponse(undefined)).message).toMatch(/received undefined$/);
    expect(thrown(() => checkResponse("http://x")).message).toMatch(/received "http:\/\/x"$/);
  });
});

describe("the context argument (what the response said about the body)", () => {
  test("is checked like options: strings or null, no unknown keys", async () => {
    expect(() => new UniEventStream({}, { contentType: "text/event-stream", contentEncoding: null })).not.toThrow();
    expect(thrown(() => new UniEventStream({}, { contentType: 5 } as never)).message).toBe(
      "UniEventStream: context.contentType must be a string or null; received 5",
    );
    expect(thrown(() => new MmspSseDecoderStream({}, "text/html" as never)).message).toBe(
      'MmspSseDecoderStream: context must be an object (or left out); received "text/html"',
    );
    expect(thrown(() => new MmspSseDecoderStream({}, { content_type: "x" } as never)).message).toMatch(/unknown option "content_type" \(did you mean "contentType"\?\)/);
  });
});
