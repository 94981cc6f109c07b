// Issue #45's door contract, in Node: what a door declares is composed once by the rest — the key
// headers admission reads (a door's `x-api-key`), the CORS headers (a door's list and its prefix's
// requested headers, by name, nothing else), its error shape (applied by the route table to a
// refusal of the relay and to a throw on its routes, an answer already in it left as it is).
import { describe, expect, test } from "vitest";
import { keyHeadersWith, RELAY_KEY_HEADERS } from "../../../../src/relay/admission/bind.ts";
import { corsPolicy, preflight } from "../../../../src/relay/admission/cors.ts";
import { keyHeadersOf, keyPrincipal } from "../../../../src/relay/admission/principal.ts";
import { type Door, encodingsOf, inDoorShape, shapedAnswer } from "../../../../src/relay/doors/door.ts";
import { OPEN_RESPONSES_DECLARES } from "../../../../src/relay/doors/open-responses/door.ts";
import { createRelay } from "../../../../src/relay/index.ts";
import { refusal } from "../../../../src/relay/refusal.ts";
import { doorAskText, doorOf, keptMeta } from "../../../../src/relay/stream/door-answer.ts";
import { asksKept } from "../../../../src/relay/stream/streams.ts";

const KEY = "k".repeat(32);
const messagesDoor = { keyHeaders: [{ name: "x-api-key" }], cors: { allow: ["anthropic-version"], allowPrefixes: ["x-stainless-"] } };

describe("key headers: admission reads the relay's key from the relay's own and every door's", () => {
  const headers = keyHeadersWith([messagesDoor, { keyHeaders: [{ name: "X-Goog-Api-Key" }] }]);
  test("composed once, each name once, lowercase, the relay's own first", () => {
    expect(headers.slice(0, 2)).toEqual([...RELAY_KEY_HEADERS]);
    expect(headers.map((h) => h.name)).toEqual(["x-relay-key", "authorization", "x-api-key", "x-goog-api-key"]);
  });
  test("a key in a door's header is the relay's key; without the door's header it is not", async () => {
    const request = new Request("https://relay.test/v1/messages", { headers: { "x-api-key": KEY } });
    expect(await keyPrincipal(request, { RELAY_KEY: KEY }, headers)).toBe("relay-key");
    expect(await keyPrincipal(request, { RELAY_KEYS: JSON.stringify({ app: KEY }) }, headers)).toBe("app");
    const refused = await keyPrincipal(request, { RELAY_KEY: KEY });
    expect(refused).toBeInstanceOf(Response);
    expect((refused as Response).status).toBe(401);
    expect(await keyHeadersOf(request, { RELAY_KEY: KEY }, headers)).toEqual(["x-api-key"]);
  });
  test("the 401 names the doors' headers too", async () => {
    const refused = (await keyPrincipal(new Request("https://relay.test/"), { RELAY_KEY: KEY }, headers)) as Response;
    expect(((await refused.json()) as { error: { message: string } }).error.message).toContain("x-api-key: <key>");
  });
});

describe("CORS: the relay's headers and the doors'", () => {
  const policy = corsPolicy([OPEN_RESPONSES_DECLARES, messagesDoor]);
  const ask = (headers: string) =>
    preflight(
      new Request("https://relay.test/v1/messages", {
        method: "OPTIONS",
        headers: { origin: "https://app.test", "access-control-request-method": "POST", "access-control-request-headers": headers },
      }),
      {},
      undefined,
      policy,
    ).headers.get("access-control-allow-headers")!;
  test("a door's listed headers are allowed; a requested header its prefix covers is allowed by name, another is not", () => {
    const allowed = ask("x-stainless-helper-method, X-Evil, content-type, x-stainless-<bad>");
    expect(allowed).toContain("anthropic-version");
    expect(allowed).toContain("X-Stainless-Package-Version");
    expect(allowed.split(", ")).toContain("x-stainless-helper-method");
    expect(allowed.toLowerCase()).not.toContain("x-evil");
    expect(allowed).not.toContain("<bad>");
    expect(allowed).not.toContain("*");
  });
});

describe("error shape: the route table writes a door's non-2xx answers and a throw on its routes in its shape", () => {
  const shape = OPEN_RESPONSES_DECLARES.errorShape!;
  test("a refusal of the relay: status, Retry-After kept, the spec's body", async () => {
    const out = await shapedAnswer(refusal(429, "RateLimitError", "slow down", { "retry-after": "3" }), shape);
    expect(out.status).toBe(429);
    expect(out.headers.get("retry-after")).toBe("3");
    expect(await out.json()).toEqual({ error: { message: "slow down", type: "too_many_requests", param: null, code: "RateLimitError" } });
  });
  test("an answer already in the door's shape, and a 2xx, pass as they are", async () => {
    const own = inDoorShape(Response.json({ error: { message: "m", type: "invalid_request", param: "x", code: "InvalidRequestError" } }, { status: 400 }));
    expect(await shapedAnswer(own, shape)).toBe(own);
    const ok = new Response("fine");
    expect(await shapedAnswer(ok, shape)).toBe(ok);
  });
  test("a throw on the Open Responses door's route is its 500 in the spec's shape (the MMSP route's stays MMSP's)", async () => {
    const relay = createRelay({
      authorize: () => {
        throw new Error("the hook broke");
      },
    });
    const body = JSON.stringify({ model: "m", input: "hi" });
    const post = (path: string) => new Request(`https://relay.test${path}`, { method: "POST", headers: { "content-type": "application/json" }, body });
    const or = await relay.fetch(post("/v1/responses"), {}, { clientAddress: "203.0.113.9" });
    expect(or.status).toBe(500);
    expect(await or.json()).toMatchObject({ error: { type: "server_error", code: "InternalError", param: null } });
    const mmsp = await relay.fetch(post("/v1/stream"), {}, { clientAddress: "203.0.113.9" });
    expect(mmsp.status).toBe(500);
    expect(await mmsp.json()).toEqual({ error: { type: "InternalError", message: expect.any(String) } });
  });
});

describe("encodings: every door's, by name, for the stream's object", () => {
  test("composed; one name given by two doors is refused", () => {
    const e = OPEN_RESPONSES_DECLARES.encodings!["open-responses"]!;
    expect(encodingsOf([OPEN_RESPONSES_DECLARES, {}])["open-responses"]).toBe(e);
    const other = { ...e };
    expect(() => encodingsOf([OPEN_RESPONSES_DECLARES, { encodings: { "open-responses": other } } as Partial<Door<unknown>>])).toThrow(TypeError);
  });
});

describe("a stream kept at its client's asking keeps its door's ask: a resume of /v1/streams/<id> is in the door's encoding", () => {
  const ask = { name: "chat", id: "0".repeat(32), after: null, whole: false, ids: true };
  test("kept with the meta, read back; a door's own request wins; a stream kept by its door's cancel keeps its meta alone", () => {
    const kept = keptMeta(ask, "m%20eta");
    // one header value (the object keeps it from the x-stream-meta header): no line break in it
    expect(new Headers({ "x-stream-meta": kept! }).get("x-stream-meta")).toBe(kept);
    expect(new Headers({ "x-stream-meta": keptMeta(ask, null)! }).get("x-stream-meta")).toBe(keptMeta(ask, null));
    expect(doorOf(null, kept)).toEqual({ ask, meta: "m%20eta" });
    expect(doorOf(null, keptMeta(ask, null))).toEqual({ ask, meta: null });
    const own = doorAskText({ ...ask, name: "other", ids: false });
    expect(doorOf(own, kept).ask!.name).toBe("other");
    expect(keptMeta({ ...ask, ids: false }, "m")).toBe("m");
    expect(doorOf(null, "m")).toEqual({ ask: null, meta: "m" });
    expect(doorOf(null, null)).toEqual({ ask: null, meta: null });
  });
  test("x-mmsp-keep: 1 asks for it", () => {
    expect(asksKept(new Request("https://relay.test/", { headers: { "x-mmsp-keep": "1" } }))).toBe(true);
    expect(asksKept(new Request("https://relay.test/", { headers: { "x-mmsp-keep": "0" } }))).toBe(false);
    expect(asksKept(new Request("https://relay.test/"))).toBe(false);
  });
});
