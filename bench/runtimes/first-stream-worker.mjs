// The Worker of the workerd "first stream" figure (bench/first-stream.mjs): bundled once with the
// package and once with the peer, each run in a fresh Miniflare instance. The corpus is a data blob
// binding (env.CORPUS), so no request carries it. Web APIs only.
//   GET /prepare?seed=N  cuts the corpus into its 1–16 KiB chunks (before the timed requests)
//   GET /read            reads it once through the contender; answers what it saw
import { chunkSeeded } from "../core/harness.mjs";

/** The module Worker that reads the corpus with contender `id` of `contenders` (bench/core/contenders.mjs). */
export function firstStreamWorker(contenders, id) {
  const k = contenders.find((c) => c.id === id);
  if (!k) throw new Error(`no contender ${id}`);
  let chunks = null;
  return {
    async fetch(request, env) {
      const url = new URL(request.url);
      if (url.pathname === "/prepare") {
        chunks = chunkSeeded(new Uint8Array(env.CORPUS), 1024, 16 * 1024, Number(url.searchParams.get("seed")));
        return Response.json({ chunks: chunks.length });
      }
      if (url.pathname !== "/read" || !chunks) return new Response("GET /prepare first, then /read", { status: 400 });
      const t0 = performance.now();
      const seen = await k.run(chunks, "sse");
      return Response.json({ ...seen, workerMs: performance.now() - t0 });
    },
  };
}
