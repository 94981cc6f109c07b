// POST /v1/stream without MMSP_UPSTREAM: the built-in samples (samples/*.sse, bundled through
// worker/generated/assets.ts), chosen by the body's `model`, replayed as a paced byte stream: the
// stand-in for the upstream (sampleUpstream(), used by the stream's Durable Object), or, on the
// stateless path (no STREAMS binding), answered through the same streamBack() as a relayed upstream.
import { SAMPLES } from "./generated/assets.ts";
import { streamBack } from "../src/relay/doors/mmsp/http.ts";
import { refusal } from "../src/relay/refusal.ts";

/** Model name → sample file. `sample-<file>` works for every sample; these are the short names. */
const ALIASES: Record<string, string> = {
  "sample-chat": "chat",
  "sample-tools": "tool-call",
  "sample-image": "image",
  "sample-audio": "audio",
  "sample-embeddings": "embeddings",
  "sample-error": "error",
};
export const DEFAULT_MODEL = "sample-chat";

/** The models the replay answers: the aliases above, then `sample-<name>` for any other sample. */
export function sampleModels(): { model: string; sample: string; description: string }[] {
  const byFile = new Map(Object.entries(ALIASES).map(([model, file]) => [file, model]));
  return Object.entries(SAMPLES).map(([file, { description }]) => ({
    model: byFile.get(file) ?? `sample-${file}`,
    sample: file,
    description,
  }));
}

function sampleFor(model: string): string | undefined {
  const file = Object.hasOwn(ALIASES, model) ? ALIASES[model] : model.startsWith("sample-") ? model.slice(7) : undefined; // ("constructor" is no alias)
  return file !== undefined && Object.hasOwn(SAMPLES, file) ? file : undefined;
}

/**
 * Pacing: milliseconds before each event, `N` or a range `A-B` (uniformly random). From the query
 * parameter `pace` (e.g. `/v1/stream?pace=0`), else the variable SAMPLE_PACE_MS, else 20-40, like
 * a real model's token rate.
 */
export function parsePace(value: string | null | undefined): [number, number] | undefined {
  const m = /^\s*(\d+(?:\.\d+)?)(?:\s*-\s*(\d+(?:\.\d+)?))?\s*$/.exec(value ?? "");
  if (!m) return undefined;
  const a = Number(m[1]);
  const b = m[2] === undefined ? a : Number(m[2]);
  return [Math.min(a, b, 60_000), Math.min(Math.max(a, b), 60_000)];
}

/** The sample's bytes, one SSE event (or comment) per chunk, each after its delay; cancellable. */
function pacedBody(text: string, [min, max]: [number, number]): ReadableStream<Uint8Array> {
  const encoder = new TextEncoder();
  const blocks = text.split(/(?<=\n\n)/); // each block keeps its "\n\n"
  let next = 0;
  let cancelled = false;
  let timer: ReturnType<typeof setTimeout> | undefined;
  let wake: (() => void) | undefined;
  return new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        if (next >= blocks.length) return controller.close();
        const block = blocks[next++]!;
        const ms = block.startsWith(":") ? 0 : min + Math.random() * (max - min);
        if (ms > 0) await new Promise<void>((resolve) => ((wake = resolve), (timer = setTimeout(resolve, ms))));
        wake = undefined;
        if (!cancelled) controller.enqueue(encoder.encode(block));
      },
      cancel() {
        cancelled = true;
        clearTimeout(timer);
        wake?.();
      },
    },
    { highWaterMark: 0 },
  );
}

/**
 * The sample the request's `model` names as an upstream answer (a paced SSE body), or a refusal
 * (400 for a body that is not a JSON object or a bad `?pace=`, 404 for an unknown model).
 */
export async function sampleUpstream(request: Request, url: URL, paceVar: string | undefined): Promise<Response> {
  let model = DEFAULT_MODEL;
  const body = await request.text();
  if (body.trim() !== "") {
    let parsed: unknown;
    try {
      parsed = JSON.parse(body);
    } catch {
      return refusal(400, "InvalidRequestError", "The request body is not JSON.");
    }
    if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) {
      return refusal(400, "InvalidRequestError", "The request body must be a JSON object.");
    }
    const m = (parsed as { model?: unknown }).model;
    if (m !== undefined && m !== null && m !== "") {
      if (typeof m !== "string") return refusal(400, "InvalidRequestError", "`model` must be a string.");
      model = m;
    }
  }
  const sample = sampleFor(model);
  if (sample === undefined) {
    const known = sampleModels().map((s) => s.model).join(", ");
    return refusal(
      404,
      "NotFoundError",
      `Model ${JSON.stringify(model)} not found. This relay has no MMSP_UPSTREAM; it replays: ${known}.`,
    );
  }
  const paceParam = url.searchParams.get("pace");
  const pace = parsePace(paceParam) ?? parsePace(paceVar) ?? [20, 40];
  if (paceParam !== null && parsePace(paceParam) === undefined) {
    return refusal(400, "InvalidRequestError", "`pace` must be milliseconds: N or A-B.");
  }
  // x-mmsp-client: how protocol errors name this upstream (an internal header; never sent out)
  return new Response(pacedBody(SAMPLES[sample]!.text, pace), {
    headers: { "content-type": "text/event-stream; charset=utf-8", "x-mmsp-client": `${model} sample` },
  });
}

/** The stateless replay: the sample streamed back; the client going away cancels it. */
export async function replay(request: Request, url: URL, paceVar: string | undefined): Promise<Response> {
  const upstream = await sampleUpstream(request, url, paceVar);
  if (!upstream.ok) return upstream;
  const client = upstream.headers.get("x-mmsp-client") ?? "sample";
  return streamBack(upstream, request.headers.get("accept"), { client, signal: request.signal });
}
