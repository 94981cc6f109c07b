// The readers the Node report (bench/run.mjs, memory.mjs, profile.mjs) compares: the same contenders the
// multi-runtime benchmark runs (bench/core/contenders.mjs, one implementation for every runtime), with the
// peers Node loads. Each `run(chunks, format, hooks)` replays `chunks` and returns what it read
// ({ events } or { groups }); `hooks.onPull` runs before each chunk (memory sampling).
//
// The library is imported from the BUILT dist/index.js (or MMSP_DIST, a path or URL).
import { pathToFileURL } from "node:url";
import { EventSourceParserStream } from "eventsource-parser/stream";
import { parseJsonEventStream } from "@ai-sdk/provider-utils";
import { Stream as OpenAIStream } from "openai/streaming";
import { z } from "zod";
import { makeContenders } from "./core/contenders.mjs";

const spec = process.env.MMSP_DIST;
export const DIST_URL = spec ? (/^[a-z]+:/i.test(spec) ? spec : pathToFileURL(spec).href) : new URL("../dist/index.js", import.meta.url).href;
const lib = await import(DIST_URL);
export const { UniEventStream, UniEventSchema, decodeBase64 } = lib;

/** id → contender (the relay path is timed by the multi-runtime benchmark only). */
export const CONTENDERS = makeContenders(lib, { EventSourceParserStream, parseJsonEventStream, OpenAIStream, z }).filter((k) => !k.relay);

export const contender = (id) => {
  const c = CONTENDERS.find((x) => x.id === id);
  if (!c) throw new Error(`unknown contender ${id} (one of ${CONTENDERS.map((x) => x.id).join(", ")})`);
  return c;
};
