// The test Worker (workerd): the example Worker (examples/worker.ts: POST /message) plus
// GET /selftest, which runs every shared case inside the Workers runtime and reports
// {passed, failed, results}. Used by the vitest workers project, scripts/miniflare-run.mjs and
// scripts/wrangler-dev-check.sh. (The product's relay Worker is ../../worker/, not this one.)
import example from "../../examples/worker.ts";
import { cases } from "../cases/index.ts";
import { runCases } from "../harness.ts";

export default {
  async fetch(request: Request): Promise<Response> {
    const { pathname } = new URL(request.url);
    if (pathname === "/selftest" && request.method === "GET") {
      const summary = await runCases(cases);
      return Response.json({ runtime: navigator.userAgent, ...summary }, { status: summary.failed === 0 ? 200 : 500 });
    }
    if (pathname === "/" && request.method === "GET") return new Response("test worker: GET /selftest, POST /message\n");
    return example.fetch(request);
  },
};
