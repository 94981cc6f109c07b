// The Gemini door: SPEC §10 "Doors: the APIs a client speaks" (same API in, same provider out: issue
// #47's pass-through to a Gemini target, routing/pass-through.ts).
//
// A streamed request (`:streamGenerateContent?alt=sse`) not kept, whose row's first target is a Gemini
// provider, goes to it as the client wrote it — top-level members the relay does not map included —
// but for what the relay decides: the key, the row's model (in the builder's URL: Gemini names the
// model in the path) and the reserved output (`generationConfig.maxOutputTokens`, the client's own or
// none lowered or set to the reserve). Gemini always reports its `usageMetadata`: nothing is asked
// beyond the client's, so the provider's bytes reach the client as they are.
import { isRecord } from "../../../internal/values.js";
import type { PassThrough } from "../../routing/pass-through.js";

type Json = Record<string, unknown>;

/** The provider's body of a passed-through Gemini request: the client's `written`, the reserve from the builder's `built`. */
export function geminiDecides(written: Json, built: Json): Json {
  const { model: _named, ...body } = written; // (the path's model is the relay's row: the builder's URL names its target)
  const generation: Json = isRecord(written.generationConfig) ? { ...written.generationConfig } : {};
  const limit = isRecord(built.generationConfig) ? built.generationConfig.maxOutputTokens : undefined;
  if (limit === undefined) delete generation.maxOutputTokens;
  else generation.maxOutputTokens = limit;
  return Object.keys(generation).length > 0 ? { ...body, generationConfig: generation } : body;
}

/** What the Gemini door passes through to a Gemini target. */
export const geminiPassThrough = (body: Json): PassThrough => ({ provider: "gemini", body, headers: [], decide: geminiDecides });
