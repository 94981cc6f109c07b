// serve() in Node: a fake provider on a real port, called over real sockets — a CORS preflight as a
// page sends it, a whole answer through the provider's factory, and a replayed cut that reaches the
// reader as a cut connection (a ConnectionError, issue #35).
import * as http from "node:http";
import { expect, test } from "vitest";
import { ConnectionError } from "../../src/errors.js";
import { anthropic } from "../../src/providers/anthropic/index.js";
import { fakeProvider } from "../../src/testing/fake-provider.js";
import { serve } from "../../src/testing/serve.js";
import type { Capture } from "../../src/testing/capture.js";
import { TEXT } from "../cases/providers/captures-anthropic.ts";

const capture: Capture = { status: 200, headers: [["content-type", "text/event-stream"]], body: new TextEncoder().encode(TEXT) };
const ask = { model: "claude-test", messages: [{ role: "user" as const, content_items: [{ type: "text.done" as const, text: "Hi" }] }] };

test("serve: a fake provider on a port answers a page's preflight, a whole stream, and a cut as a cut", async () => {
  const fake = fakeProvider("anthropic", { streams: { "claude-test": capture, "claude-cut": { capture, cutAfterEvents: 3 } }, key: "k" });
  const server = await serve(fake, { http });
  try {
    expect(server.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    const preflight = await fetch(`${server.url}/v1/messages`, {
      method: "OPTIONS",
      headers: {
        origin: "http://page.test",
        "access-control-request-method": "POST",
        "access-control-request-headers": "anthropic-dangerous-direct-browser-access,anthropic-version,content-type,x-api-key",
      },
    });
    expect(preflight.status).toBe(204);
    expect(preflight.headers.get("access-control-allow-origin")).toBe("*");
    expect(preflight.headers.get("access-control-allow-headers")).toContain("x-api-key");
    expect(fake.requests).toHaveLength(0); // a preflight is answered, not logged

    const claude = anthropic({ apiKey: "k", baseURL: server.url });
    const whole = claude.stream(ask);
    const message = await whole.message;
    expect(message.content_items.length).toBeGreaterThan(0);

    const cut = claude.stream({ ...ask, model: "claude-cut" });
    const error = await cut.message.then(() => undefined, (e: unknown) => e);
    expect(error).toBeInstanceOf(ConnectionError);
    expect((error as ConnectionError).host).toBe(new URL(server.url).host);
    expect((error as ConnectionError).bytesRead).toBeGreaterThan(0); // (three of the provider's events, before any UniEvent)
    expect((error as Error).cause).toBeInstanceOf(TypeError); // the platform's own error of the cut
  } finally {
    await server.close();
  }
});

test("serve: on Node without its http module, a TypeError that says what to pass", async () => {
  await expect(serve(() => new Response("x"))).rejects.toThrow(/http: await import\("node:http"\)/);
  await expect(serve(() => new Response("x"), { port: 70000, http })).rejects.toThrow(RangeError);
});
