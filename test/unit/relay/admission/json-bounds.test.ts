// The bounded scan of a request body (src/relay/admission/json-bounds.ts): the same verdict whatever the
// chunking, brackets inside strings (escaped quotes included) not counted, and the first bound
// passed named with its byte.
import { expect, test } from "vitest";
import { JsonBoundsScan, type JsonBounds } from "../../../../src/relay/admission/json-bounds.ts";

const BOUNDS: JsonBounds = { depth: 4, values: 10, stringBytes: 8 };
const utf8 = new TextEncoder();

/** The scan's verdict on `text` cut into chunks at `cuts`. */
function verdict(text: string, cuts: number[] = [], bounds = BOUNDS): string {
  const bytes = utf8.encode(text);
  const scan = new JsonBoundsScan(bounds);
  let at = 0;
  for (const cut of [...cuts, bytes.length]) {
    scan.push(bytes.subarray(at, cut));
    at = cut;
  }
  return scan.passed ? `${scan.passed.bound}@${scan.passed.offset}` : "ok";
}

const CASES: [string, string][] = [
  ['{"a":[1,2,{"b":"[[[[[[[["}]}', "ok"], // brackets in a string are text
  ['{"a":"\\"[[[[[","b":1}', "ok"], // an escaped quote does not end the string
  ['{"a":"\\\\"}', "ok"], // an escaped backslash, then the closing quote
  ['[[[[1]]]]', "ok"],
  ['[[[[[1]]]]]', "depth@4"],
  ['[1,2,3,4,5,6,7,8,9,10]', "ok"],
  ['[1,2,3,4,5,6,7,8,9,10,11]', "values@21"],
  ['[ [] ,[],[],[],[],[],[],[],[],[]]', "ok"],
  ['[[],[],[],[],[],[],[],[],[],[],[]]', "values@30"],
  ['{"a":{"b":{},"c":[]},"d":1,"e":2,"f":3,"g":4,"h":5,"i":6,"j":7,"k":8}', "values@62"],
  ['{"s":"12345678"}', "ok"],
  ['{"s":"123456789"}', "stringBytes@14"],
  ['{"s":"\\n\\n\\n\\n\\n"}', "stringBytes@14"],
  ['{"s":"é€😀"}', "stringBytes@14"], // 2 + 3 + 4 bytes
];

test("the verdict, whole and cut at every byte (and at every pair of bytes)", () => {
  for (const [text, expected] of CASES) {
    expect(verdict(text), text).toBe(expected);
    const n = utf8.encode(text).length;
    for (let i = 0; i <= n; i++) {
      expect(verdict(text, [i]), `${text} cut at ${i}`).toBe(expected);
      for (let j = i; j <= n; j += 3) expect(verdict(text, [i, j]), `${text} cut at ${i}, ${j}`).toBe(expected);
    }
  }
});

test("a bound passed stays passed; later chunks are not scanned", () => {
  const scan = new JsonBoundsScan(BOUNDS);
  expect(scan.push(utf8.encode("[[[[["))).toEqual({ bound: "depth", limit: 4, offset: 4 });
  expect(scan.push(utf8.encode("]]]]]"))).toEqual({ bound: "depth", limit: 4, offset: 4 });
});
