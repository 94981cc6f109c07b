// What of a provider reaches a relay's client (issue #34, SPEC §10 "The provider's problems stay the
// operator's"): no key, nor any 8 characters of one, in a refusal cut to its preview; the provider's
// 401/403 about the operator's key and its redirect a 502 UpstreamUnavailable that quotes none of it,
// the log the refusal with the key cut out; no exception's text but the package's own (a URL with its
// password, the provider's address). Through the repository Worker's provider-backed models (the
// Durable Object path) and createRelay({ models }) of one's own (stateless).
import { env } from "cloudflare:test";
import { afterEach, beforeEach, describe, expect, test, vi } from "vitest";
import worker from "../../worker/index.ts";
import { createRelay } from "../../src/relay/index.ts";
import { anthropic, openaiChat } from "../../src/providers/index.ts";
import type { Provider } from "../../src/providers/provider.ts";
import { EDGE, newTag, ORIGIN, textOf } from "./relay.ts";

const KEYS = ["sk-ant-test-KEY-must-not-leak-0001", "sk-test-KEY-must-not-leak-0002"];
const RELAY_KEY = "relay-key-for-tests";
const keyed = { ...env, RELAY_KEY } as typeof env & { RELAY_KEY: string };

/** Every run of 8 characters of a key (what SPEC §10 counts as the key). */
const pieces = KEYS.flatMap((key) => Array.from({ length: key.length - 7 }, (_, i) => key.slice(i, i + 8)));
/** The first piece of a key that `text` holds, or undefined. */
const leaked = (text: string): string | undefined => pieces.find((p) => text.includes(p));

let logged: string[] = [];
beforeEach(() => {
  logged = [];
  for (const level of ["log", "info", "warn", "error", "debug"] as const) {
    vi.spyOn(console, level).mockImplementation((...args: unknown[]) => {
      logged.push(args.map((a) => (a instanceof Error ? `${a.name}: ${a.message}` : typeof a === "string" ? a : JSON.stringify(a))).join(" "));
    });
  }
});
afterEach(() => {
  vi.restoreAllMocks();
  expect(leaked(logged.join("\n")), "a piece of a provider key in the log").toBeUndefined();
});

/** The MMSP request of a test: the tag and the script go in the user's text (providers.ts). */
const mmsp = (model: string, tag: string, script: string): string =>
  JSON.stringify({ model, messages: [{ role: "user", content_items: [{ type: "text.done", text: `tag:${tag} script:${script}` }] }] });

/** POST /v1/stream to the repository Worker (with its STREAMS: the Durable Object path), with the relay's key. */
async function post(model: string, script: string): Promise<{ status: number; text: string; headers: string }> {
  const request = new Request(`${ORIGIN}/v1/stream`, {
    method: "POST",
    headers: { "content-type": "application/json", "x-relay-key": RELAY_KEY },
    body: mmsp(model, newTag(), script),
  });
  const answer = await worker.fetch(request, keyed);
  return { status: answer.status, text: await textOf(answer), headers: [...answer.headers].join("\n") };
}

/** The `{"error"}` of a refusal's text. */
const errorOf = (text: string): { type: string; message: string } => (JSON.parse(text) as { error: { type: string; message: string } }).error;

describe.each([["claude-fast", "anthropic"], ["gpt-fast", "openai-chat"]])("%s (%s), through the Durable Object", (model, provider) => {
  test("a plain-text 502 whose key starts at character 186 (the preview ends inside it): no 8 characters of it reach the client", async () => {
    const { status, text, headers } = await post(model, "refuse-text-key");
    expect(status).toBe(502);
    expect(leaked(text + headers), text).toBeUndefined();
    expect(errorOf(text).message).toMatch(/^HTTP 502: x{184} \[api key\]/);
  });

  test.each(["refuse-401", "refuse-403"])("%s about the operator's key: 502 UpstreamUnavailable quoting none of it; the log has it, the key cut out", async (script) => {
    const { status, text, headers } = await post(model, script);
    expect(status).toBe(502);
    const error = errorOf(text);
    expect(error.type).toBe("UpstreamUnavailable");
    expect(error.message).toContain(`The provider (${provider}) refused the relay's credentials`);
    expect(error.message).not.toMatch(/Incorrect API key|may not use|\*\*\*\*|sk-/);
    expect(leaked(text + headers)).toBeUndefined();
    const line = logged.find((l) => l.includes(`the provider (${provider}) refused`));
    expect(line, logged.join("\n")).toMatch(script === "refuse-401" ? /Incorrect API key provided: \[api key\]\*\*\*\*/ : /may not use this model/);
  });

  test("a redirect: 502 UpstreamUnavailable naming no address", async () => {
    const { status, text } = await post(model, "redirect");
    expect(status).toBe(502);
    const error = errorOf(text);
    expect(error.type).toBe("UpstreamUnavailable");
    expect(error.message).toMatch(/redirect/);
    expect(text).not.toMatch(/upstream\.test|elsewhere\.test|http:|:\/\//);
  });
});

describe("createRelay({ models }) of one's own (stateless)", () => {
  const own = { ...env, STREAMS: undefined, MMSP_UPSTREAM: undefined } as unknown as typeof env;
  const ask = (relay: ReturnType<typeof createRelay>, body: string): Promise<Response> =>
    relay.fetch(new Request(`${ORIGIN}/v1/stream`, { ...EDGE, method: "POST", headers: { "content-type": "application/json" }, body }), own);
  const oneRow = (provider: Provider) => createRelay({ models: { m: { provider, model: "gpt-test" } }, allowAnonymous: true });

  test("a provider whose base URL holds user:password@ is refused when it is made, the URL not shown", () => {
    for (const make of [openaiChat, anthropic]) {
      let error: unknown;
      try {
        make({ apiKey: KEYS[1]!, baseURL: "https://admin:hunter2@gateway.test/v1" });
      } catch (e) {
        error = e;
      }
      expect(error).toBeInstanceOf(RangeError);
      expect(String(error)).toMatch(/user:password@/);
      expect(String(error)).not.toMatch(/hunter2|admin|gateway\.test/);
    }
  });

  test("a request() that fails on the operator's side (a URL with a password): 502, no text of the exception", async () => {
    const real = openaiChat({ apiKey: KEYS[1]!, baseURL: "http://upstream.test/openai/v1" });
    // (undici's words for such a URL; workerd's Request takes it)
    const request = (r: Parameters<Provider["request"]>[0]): Request => {
      throw new TypeError(`Request cannot be constructed from a URL that includes credentials: ${real.request(r).url.replace("//", "//admin:hunter2@")}`);
    };
    const provider: Provider = { ...real, request };
    const answer = await ask(oneRow(provider), mmsp("m", newTag(), "text"));
    const text = await answer.text();
    expect(answer.status).toBe(502);
    expect(errorOf(text).type).toBe("UpstreamUnavailable");
    expect(text).not.toMatch(/hunter2|admin|upstream\.test/);
    expect(logged.join("\n")).not.toMatch(/hunter2/);
  });

  test("the client's own malformed request: still a 400 naming its field", async () => {
    const provider = openaiChat({ apiKey: KEYS[1]!, baseURL: "http://upstream.test/openai/v1" });
    const body = JSON.stringify({ model: "m", messages: [{ role: "robot", content_items: [] }] });
    const answer = await ask(oneRow(provider), body);
    expect(answer.status).toBe(400);
    const error = errorOf(await answer.text());
    expect(error.type).toBe("InvalidRequestError");
    expect(error.message).toMatch(/request\.messages\[0\]/);
  });

  test("a provider stream that fails with a platform's error naming the provider's address: 502 UpstreamUnavailable, no text of it", async () => {
    const real = openaiChat({ apiKey: KEYS[1]!, baseURL: "http://upstream.test/openai/v1" });
    const failing = (): ReturnType<Provider["stream"]> => {
      const events = real.stream(real.request({ model: "x", messages: [] }));
      const readable = new ReadableStream({
        pull: (c) => c.error(new TypeError(`connect ECONNREFUSED 10.1.2.3:8443 (http://10.1.2.3:8443/v1, key ${KEYS[1]})`)),
      });
      events.readable.cancel().catch(() => {});
      events.message.catch(() => {});
      return { ...events, readable };
    };
    const answer = await ask(oneRow({ ...real, stream: failing }), mmsp("m", newTag(), "text"));
    const text = await answer.text();
    expect(answer.status).toBe(502);
    expect(errorOf(text).type).toBe("UpstreamUnavailable");
    expect(text).not.toMatch(/10\.1\.2\.3|ECONNREFUSED|8443/);
    expect(leaked(text)).toBeUndefined();
  });
});
