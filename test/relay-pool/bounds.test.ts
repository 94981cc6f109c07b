// What one request may cost (src/relay/admission/limits.ts, json-bounds.ts): a body past MAX_BODY_BYTES is a
// 413, one that nests too deep, holds too many values or a string past MAX_INLINE_BYTES a 400, in
// MMSP's refusal shape, on both routes (/v1/stream, /api/chat); the scan stops at the first bound
// (the refusal names the byte, far before the body's end) and a refused body never goes upstream.
// An ordinary large request passes: a chat message carrying a 6 MiB image.
import { SELF } from "cloudflare:test";
import { expect, test } from "vitest";
import { newTag, ORIGIN, upstreamLast, upstreamRequests } from "./relay.ts";

const MiB = 1024 * 1024;
const user = (parts: object[]) => ({ id: "u1", role: "user", parts });

/** A body of `head`, then `fill` repeated to about `bytes`, then `tail`. */
function padded(head: string, fill: string, bytes: number, tail: string): Uint8Array<ArrayBuffer> {
  return new TextEncoder().encode(head + fill.repeat(Math.ceil(bytes / fill.length)) + tail);
}

const postTo = (path: string, body: BodyInit): Promise<Response> =>
  SELF.fetch(`${ORIGIN}${path}`, { method: "POST", headers: { "content-type": "application/json" }, body });

/** A refusal's status, type and message. */
async function refusalOf(res: Response): Promise<{ status: number; type: string; message: string }> {
  const body = (await res.json()) as { error: { type: string; message: string } };
  return { status: res.status, type: body.error.type, message: body.error.message };
}

/** The byte a refusal names (`at byte N`). */
const byteOf = (message: string): number => Number(/at byte (\d+)/.exec(message)?.[1] ?? NaN);

test("7 MiB of [] elements: a 400 at the 100 001st value, long before the body's end; nothing upstream (both routes)", async () => {
  for (const path of ["/v1/stream", "/api/chat"]) {
    const tag = newTag();
    const body = path === "/v1/stream"
      ? padded(`{"tag":"${tag}","model":"tools","messages":[`, "[],", 7 * MiB, "[]]}")
      : padded(`{"messages":[],"config":{"tag":"${tag}","x":[`, "[],", 7 * MiB, "[]]}}");
    const r = await refusalOf(await postTo(path, body));
    expect(r).toMatchObject({ status: 400, type: "InvalidRequestError" });
    expect(r.message).toMatch(/more than 100000 values/);
    expect(byteOf(r.message)).toBeLessThan(400_000); // stopped there: the scan read no further
    expect(await upstreamRequests(tag)).toBe(0);
  }
});

test("10 MB of nested [ in config: a 400 at depth 65; over 16 MiB a 413 'Request body is too large.'; nothing upstream", async () => {
  for (const path of ["/v1/stream", "/api/chat"]) {
    const tag = newTag();
    const deep = await refusalOf(await postTo(path, padded(`{"model":"tools","messages":[],"tag":"${tag}","config":{"tag":"${tag}","x":`, "[", 10_000_000, "")));
    expect(deep).toMatchObject({ status: 400, type: "InvalidRequestError" });
    expect(deep.message).toMatch(/deeper than 64 levels/);
    expect(byteOf(deep.message)).toBeLessThan(200);
    const big = await refusalOf(await postTo(path, padded(`{"tag":"${tag}","messages":[],"s":"`, "a", 17 * MiB, '"}')));
    expect(big).toMatchObject({ status: 413, type: "InvalidRequestError" });
    expect(big.message).toMatch(/^Request body is too large\./);
    expect(await upstreamRequests(tag)).toBe(0);
  }
});

test("a string past MAX_INLINE_BYTES (12 MiB): a 400 that says so; a chat message with a 6 MiB image passes, its bytes upstream as base64", async () => {
  const tag = newTag();
  const long = await refusalOf(await postTo("/v1/stream", padded(`{"tag":"${tag}","messages":[],"s":"`, "\\n", 13 * MiB, '"}')));
  expect(long).toMatchObject({ status: 400, type: "InvalidRequestError" });
  expect(long.message).toMatch(/string longer than 12582912 bytes/);
  expect(await upstreamRequests(tag)).toBe(0);

  const image = new Uint8Array(6 * MiB);
  for (let i = 0; i < image.length; i++) image[i] = (i * 7919) & 0xff;
  let binary = "";
  for (let i = 0; i < image.length; i += 0x8000) binary += String.fromCharCode(...image.subarray(i, i + 0x8000));
  const url = `data:image/png;base64,${btoa(binary)}`;
  const ok = await postTo("/api/chat", JSON.stringify({ messages: [user([{ type: "text", text: "what is it?" }, { type: "file", mediaType: "image/png", url }])], model: "tools", config: { tag } }));
  expect(ok.status).toBe(200);
  await ok.arrayBuffer();
  const sent = JSON.parse((await upstreamLast(tag))!.body) as { messages: { content_items: { type: string; image_url?: string }[] }[] };
  const item = sent.messages[0]!.content_items[1]!;
  expect(item.type).toBe("image_url.done");
  expect(item.image_url === url, "the image's data: URL went upstream as it came").toBe(true);
});

test("/api/chat: a file part's bytes go upstream as base64 (inline_data.done), from a base64 or a percent-encoded data: URL", async () => {
  for (const url of ["data:application/pdf;base64,JVBERi0xLjc=", "data:application/pdf,%25PDF-1.7"]) {
    const tag = newTag();
    const file = { type: "file", mediaType: "application/pdf", url };
    const res = await postTo("/api/chat", JSON.stringify({ messages: [user([file])], model: "tools", config: { tag } }));
    expect(res.status).toBe(200);
    await res.arrayBuffer();
    const sent = JSON.parse((await upstreamLast(tag))!.body) as { messages: { content_items: { type: string; data: unknown }[] }[] };
    const item = sent.messages[0]!.content_items[0]!;
    expect(item.type).toBe("inline_data.done");
    expect(item.data).toBe("JVBERi0xLjc="); // "%PDF-1.7", not {"0":37,"1":80,…}
  }
});
