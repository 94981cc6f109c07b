// The SSE field parser (src/framing/sse-parser.ts), line by line, as the WHATWG standard interprets a stream.
import { describe, expect, test } from "vitest";
import { SseParser, type SseMessage } from "../../src/framing/sse-parser.ts";

/** Feeds lines (blank ones dispatch, ":" ones are comments — the framer's job, mirrored here). */
function parse(lines: string[]): SseMessage[] {
  const p = new SseParser();
  const out: SseMessage[] = [];
  for (const line of lines) {
    if (line === "") {
      const m = p.dispatch();
      if (m) out.push(m);
    } else if (!line.startsWith(":")) p.field(line);
  }
  return out;
}

describe("fields", () => {
  test("data lines join with LF; one leading space is dropped, a second one kept", () => {
    expect(parse(["data: a", "data:  b", "data:c", ""])).toEqual([{ data: "a\n b\nc" }]);
  });
  test("a field without a colon is the field with an empty value", () => {
    expect(parse(["data", ""])).toEqual([{ data: "" }]);
    expect(parse(["data", "data", ""])).toEqual([{ data: "\n" }]);
  });
  test("unknown fields are ignored, the text ï»¿data included", () => {
    expect(parse(["\u00ef\u00bb\u00bfdata: x", "foo: y", ""])).toEqual([]);
  });
  test("retry: is no data and does not touch the message (a stream has no reconnection delay to set)", () => {
    expect(parse(["retry: 1500", "data: a", "retry: x", ""])).toEqual([{ data: "a" }]);
    expect(parse(["retry: 1500", ""])).toEqual([]);
  });
});

describe("dispatch", () => {
  test("a blank line without data dispatches nothing and resets the event type", () => {
    expect(parse(["event: x", "", "data: y", ""])).toEqual([{ data: "y" }]);
  });
  test("the event type is kept for its message only", () => {
    expect(parse(["event: a", "data: 1", "", "data: 2", ""])).toEqual([{ data: "1", event: "a" }, { data: "2" }]);
  });
  test("the last event id persists across messages; an empty id clears it; an id with NUL is ignored", () => {
    expect(parse(["id: 1", "data: a", "", "data: b", "", "id: 2\u0000", "data: c", "", "id", "data: d", ""])).toEqual([
      { data: "a", id: "1" },
      { data: "b", id: "1" },
      { data: "c", id: "1" },
      { data: "d" },
    ]);
  });
  test("an id without data still sets the last event id", () => {
    expect(parse(["id: 7", "", "data: x", ""])).toEqual([{ data: "x", id: "7" }]);
  });
});
