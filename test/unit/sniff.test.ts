// format: "auto"'s one rule (src/framing/sniff.ts), asked by the fused reader before it makes a framer (fromResponse's and fromFetch's too).
import { expect, test } from "vitest";
import { FormatSniffer } from "../../src/framing/sniff.ts";

const bytes = (...parts: (string | number[])[]) => parts.map((p) => (typeof p === "string" ? new TextEncoder().encode(p) : new Uint8Array(p)));
const sniff = (chunks: Uint8Array[], max = 1024) => {
  const s = new FormatSniffer(max);
  for (const c of chunks) {
    const f = s.push(c);
    if (f) return f;
  }
  return `end:${s.end()}`;
};

test("the first byte that is not whitespace tells: `{` is NDJSON, anything else SSE", () => {
  expect(sniff(bytes('{"a":1}\n'))).toBe("ndjson");
  expect(sniff(bytes(" \r\n\t", '{"a":1}'))).toBe("ndjson");
  expect(sniff(bytes("data: x\n\n"))).toBe("sse");
  expect(sniff(bytes(": keep-alive\n\n"))).toBe("sse");
  expect(sniff(bytes("<html>"))).toBe("sse");
});

test("a leading BOM is skipped, even split across chunks; a BOM's bytes later are content", () => {
  expect(sniff(bytes([0xef], [0xbb], [0xbf], "{}"))).toBe("ndjson");
  expect(sniff(bytes([0xef, 0xbb, 0xbf, 0x20], "{}"))).toBe("ndjson");
  expect(sniff(bytes([0xef, 0x7b]))).toBe("sse"); // a broken BOM: the start of something else
  expect(sniff(bytes(" ", [0xef, 0xbb, 0xbf], "{}"))).toBe("sse"); // not at the very start: not a BOM
});

test("an empty or blank input is told at its end (SSE), and whitespace is not held without bound", () => {
  expect(sniff([])).toBe("end:sse");
  expect(sniff(bytes("  \n\n"))).toBe("end:sse");
  expect(sniff(bytes("    ", "    "), 8)).toBe("sse");
});
