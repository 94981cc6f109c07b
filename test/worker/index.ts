// The test Worker (workerd): the example Worker (examples/worker.ts: POST /message) plus
// GET /selftest, which runs every shared case inside the Workers runtime and reports
// {passed, failed, results}; `?part=i&of=n` runs every n-th case from the i-th only (issue #48: the
// vitest workers project asks for the cases in parts, each bounded by its own time-out, so a busy
// machine slows the self-test without failing it). Used by the vitest workers project, scripts/miniflare-run.mjs and
// scripts/wrangler-dev-check.sh. (The product's relay Worker is ../../worker/, not this one.)
import example from "../../examples/worker.ts";
import { cases } from "../cases/index.ts";
import { runCases } from "../harness.ts";

export default {
  async fetch(request: Request): Promise<Response> {
    const { pathname, searchParams } = new URL(request.url);
    if (pathname === "/selftest" && request.method === "GET") {
      const of = Number(searchParams.get("of") ?? 1);
      const part = Number(searchParams.get("part") ?? 0);
      if (!(Number.isInteger(of) && of >= 1 && Number.isInteger(part) && part >= 0 && part < of)) {
        return new Response("selftest: ?part=i&of=n with 0 <= i < n\n", { status: 400 });
      }
      const summary = await runCases(cases.filter((_, i) => i % of === part));
      return Response.json({ runtime: navigator.userAgent, ...summary }, { status: summary.failed === 0 ? 200 : 500 });
    }
    if (pathname === "/" && request.method === "GET") return new Response("test worker: GET /selftest, POST /message\n");
    return example.fetch(request);
  },
};
