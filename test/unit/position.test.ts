// Where a record sits (src/read/position.ts) and how an error gets that place (src/internal/fault.ts
// `locate`): the one description both the fused reader and the chained stages locate failures by.
import { describe, expect, test } from "vitest";
import { Fault, locate } from "../../src/internal/fault.ts";
import { endOf, positionOf, recordPreview, tagPosition } from "../../src/read/position.ts";
import { StreamLimitError, StreamProtocolError } from "../../src/errors.ts";

describe("locate", () => {
  test("a fault becomes a StreamProtocolError naming rule, line, event and byte, then the preview", () => {
    const e = locate(new Fault("JSON", "bad"), "upstream", { eventIndex: 3, byteOffset: 40, byteEnd: 52, line: 4, preview: "{x", format: "ndjson" });
    expect(e).toBeInstanceOf(StreamProtocolError);
    const p = e as StreamProtocolError;
    expect(p.message).toBe("upstream broke the streaming protocol: bad (rule JSON, line 4, event 3, byte 40): {x");
    expect([p.rule, p.eventIndex, p.byteOffset, p.preview]).toEqual(["JSON", 3, 40, "{x"]);
    // what only carries a position along (its end, the format, the line) is no field of the error
    expect(Object.keys(p)).not.toContain("byteEnd");
    expect(Object.keys(p)).not.toContain("line");
  });

  test("no byte offset (an event from your own source): none said, none set", () => {
    const p = locate(new Fault("SCHEMA", "off"), "c", { eventIndex: 0, preview: "{}" }) as StreamProtocolError;
    expect(p.message).toBe("c broke the streaming protocol: off (rule SCHEMA, event 0): {}");
    expect(p.byteOffset).toBeUndefined();
  });

  test("an exact fault keeps its detail whole", () => {
    const p = locate(new Fault("STOP-LAST", "exact words", true), "c", { eventIndex: 1, byteOffset: 2, preview: "x" }) as StreamProtocolError;
    expect(p.detail).toBe("exact words");
    expect([p.eventIndex, p.byteOffset, p.preview]).toEqual([1, 2, "x"]);
  });

  test("a package error gets only the place it lacks", () => {
    const e = new StreamLimitError({ limit: "maxDepth", value: 2, detail: "deep" });
    e.byteOffset = 7;
    expect(locate(e, "c", { eventIndex: 5, byteOffset: 9, preview: "p" })).toBe(e);
    expect([e.eventIndex, e.byteOffset, e.preview]).toEqual([5, 7, "p"]);
    const other = new Error("not ours");
    expect(locate(other, "c", { eventIndex: 5, preview: "p" })).toBe(other);
  });
});

describe("endOf", () => {
  test("just past the last event, or event 0 at byte 0 when none came", () => {
    expect(endOf({ eventIndex: 4, byteOffset: 10, byteEnd: 30, preview: "{a}" })).toEqual({ eventIndex: 5, byteOffset: 30, preview: "<end of input after> {a}" });
    expect(endOf({ eventIndex: 2, preview: "{b}" })).toEqual({ eventIndex: 3, byteOffset: undefined, preview: "<end of input after> {b}" });
    expect(endOf(undefined)).toEqual({ eventIndex: 0, byteOffset: 0, preview: "<no event>" });
  });
});

describe("tags and previews", () => {
  test("a tagged object gives its position back; anything else none", () => {
    const o = {};
    const at = { eventIndex: 1, byteOffset: 0, byteEnd: 5, preview: "x", format: "sse" as const };
    tagPosition(o, at);
    expect(positionOf(o)).toBe(at);
    expect([positionOf({}), positionOf(null), positionOf("s")]).toEqual([undefined, undefined, undefined]);
  });

  test("a captured string shows as its size", () => {
    const text = '{"data":"\\u0000mmsp-streams:captured-bytes\\u0000"}';
    expect(recordPreview(text, new Uint8Array(12))).toBe('{"data":"<12 bytes of base64>"}');
  });

  test("a long base64 data string read as text shows as its size too: one wording with or without a capture", () => {
    const b64 = "AAEC".repeat(100) + "AA==";
    const text = `{"type":"inline_data.done","data": "${b64}","mime_type":"image/png"}`;
    expect(recordPreview(text)).toBe(`{"type":"inline_data.done","data": "<301 bytes of base64>","mime_type":"image/png"}`);
    const short = '{"type":"inline_data.delta","data":"AAE=","mime_type":"audio/wav","x":"' + "y".repeat(120) + '"}';
    expect(recordPreview(short)).toBe(short.slice(0, 120) + "…");
  });
});
