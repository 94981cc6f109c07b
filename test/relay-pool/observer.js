// The relay-pool project's outbound Worker (workerd, in front of upstream.ts in Node): every fetch
// the relay and its Durable Objects make passes here on its way to the scripted upstream. It exists
// to see what Node cannot: Miniflare reads a Node answer to its end whatever the caller does, so a
// relay that aborts its upstream request is only visible inside workerd, as this request's signal
// (enable_request_signal) aborting. `GET /__requests?tag=` adds `cancelledAt` (ms, or null) to the
// upstream's `{"count"}`: when the relay aborted the request carrying that tag; and `cancelledModels`,
// {model: ms}, the same per model a provider's request named (a row's targets).
/** Tag → when the relay aborted that request. */
const cancelled = new Map();
/** `${tag} ${model}` → when the relay aborted the request for that model (a row's targets: which one was stopped). */
const cancelledModels = new Map();
/** Tags whose first provider request was made unreachable. */
const unreachable = new Set();

export default {
  async fetch(request) {
    const url = new URL(request.url);
    if (request.method === "GET" && url.pathname === "/__requests") {
      const counts = await (await fetch(request)).json();
      const tag = url.searchParams.get("tag") ?? "";
      const models = Object.fromEntries([...cancelledModels].filter(([k]) => k.startsWith(`${tag} `)).map(([k, at]) => [k.slice(tag.length + 1), at]));
      return Response.json({ ...counts, cancelledAt: cancelled.get(tag) ?? null, cancelledModels: models });
    }
    if (request.method !== "POST") return fetch(request);
    const body = await request.text();
    let tag = "";
    try {
      const parsed = JSON.parse(body);
      tag = String(parsed.tag ?? parsed.config?.tag ?? ""); // (an /api/chat request carries it in `config`)
    } catch {}
    // a provider's request carries it in its text (providers.ts): `tag:<uuid>`
    if (tag === "") tag = /tag:([\w-]+)/.exec(body)?.[1] ?? "";
    // the first provider request of a tag whose script says so never reaches a server (providers.ts)
    if (/script:unreachable-first/.test(body) && !unreachable.has(tag)) {
      unreachable.add(tag);
      throw new TypeError("Network connection lost (scripted: unreachable-first)");
    }
    // workerd's own failure of a request that reaches no server: a plain Error, not a TypeError (issue #44)
    if (/script:lost-first/.test(body) && !unreachable.has(tag)) {
      unreachable.add(tag);
      throw new Error("Network connection lost.");
    }
    const model = /"model":\s*"([\w.-]+)"/.exec(body)?.[1] ?? "";
    request.signal.addEventListener("abort", () => {
      cancelled.set(tag, Date.now());
      cancelledModels.set(`${tag} ${model}`, Date.now());
    }, { once: true });
    // (a redirect goes back to the relay, as a server's would: followed here, the relay would never see it)
    const answer = await fetch(url, { method: "POST", headers: request.headers, body, signal: request.signal, redirect: "manual" });
    if (!answer.body) return answer;
    // piped through JS, not passed on as it is: a passed-on body ends this request's part here, and
    // its signal would not abort when the relay lets go of the answer
    const reader = answer.body.getReader();
    const piped = new ReadableStream(
      {
        async pull(controller) {
          const { done, value } = await reader.read();
          if (done) controller.close();
          else controller.enqueue(value);
        },
        cancel: (reason) => reader.cancel(reason),
      },
      { highWaterMark: 0 },
    );
    return new Response(piped, answer);
  },
};
