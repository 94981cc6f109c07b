/**
 * `mmsp-streams/partial-json`: the incremental parser of partial JSON (tool-call arguments as they
 * stream), alone. Each fragment is parsed once; the value so far is updated in place.
 *
 * @example
 * ```ts
 * import { PartialJsonParser } from "mmsp-streams/partial-json";
 *
 * const parser = new PartialJsonParser();
 * parser.push('{"city": "Par');
 * console.log(parser.value); // { city: "Par" }
 * ```
 *
 * @module
 */
export { PartialJsonParser, type PartialJsonParserOptions } from "./partial/partial-json.js";
