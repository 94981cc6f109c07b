// The module Worker of the workerd run (bundled by esbuild, run by Miniflare): POST /run with a
// corpus's bytes as the body and `x-plan` (the JSON plan of that corpus's cases) runs the core
// inside the request and answers with JSON. workerd's clock: see bench/runtimes/workerd.mjs.
import { bench, readCost } from "../core/entry.mjs";

export default {
  async fetch(request) {
    const url = new URL(request.url);
    if (url.pathname === "/read-cost") return Response.json(await readCost());
    if (url.pathname !== "/run") return new Response("not found", { status: 404 });
    const plan = JSON.parse(request.headers.get("x-plan"));
    const bytes = new Uint8Array(await request.arrayBuffer());
    const lines = [];
    const result = await bench({
      plan,
      getCorpus: (name, format) => ({ name, format, bytes, ...plan.corpora[`${name}/${format}`] }),
      log: (s) => lines.push(s),
    });
    return Response.json({ ...result, log: lines });
  },
};
