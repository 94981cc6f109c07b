// The relay-pool's upstream (upstream.ts, in Node beside workerd, with miniflare's Request and
// Response) handing the client matrix's requests to the kit's fake providers of test/cases/matrix/fakes.ts
// (web-standard, shared with the Node matrix): miniflare's Request in, the fetch API's out, and back.
import { type Request, Response } from "miniflare";
import { fakeSeen as seen, matrixApi as shared } from "../cases/matrix/fakes.ts";

/** GET /__fake?tag=: the bodies the fakes got with that tag. */
export const fakeSeen = (tag: string): Response => new Response(JSON.stringify(seen(tag)), { headers: { "content-type": "application/json" } });

/** The fake provider answering a matrix request at `path`, or null when the request is none of the matrix's. */
export async function matrixApi(request: Request, path: string): Promise<Response | null> {
  const body = request.method === "GET" || request.method === "HEAD" ? undefined : await request.clone().text();
  const answer = await shared(new globalThis.Request(request.url, { method: request.method, headers: [...request.headers], body }), path);
  return answer && new Response(answer.body as never, { status: answer.status, headers: [...answer.headers] });
}
