// Node (>= 20): a local server streams an MMSP response (SSE), and the client reads it with
// `fromResponse`: events as they arrive, then the finished message.
//   npm run build && node examples/node.mjs
import { createServer } from "node:http";
import { readFile } from "node:fs/promises";
import { fromResponse } from "mmsp-streams";

// --- a stand-in for an MMSP server: replays a captured stream in small, slow chunks ------------
const capture = await readFile(new URL("./sample.sse", import.meta.url));
const server = createServer(async (req, res) => {
  res.writeHead(200, { "content-type": "text/event-stream; charset=utf-8", "cache-control": "no-cache" });
  for (let o = 0; o < capture.length; o += 64) {
    res.write(capture.subarray(o, o + 64)); // chunks end anywhere, even inside a character
    await new Promise((r) => setTimeout(r, 2));
  }
  res.end();
});
await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
const url = `http://127.0.0.1:${server.address().port}/v1/stream`;

// --- the client --------------------------------------------------------------------------------
try {
  const response = await fetch(url, { method: "POST", body: JSON.stringify({ model: "demo", messages: [] }) });
  const { readable, message } = fromResponse(response);

  for await (const event of readable) {
    const item = event.content_items[0];
    if (item?.type === "text.delta") process.stdout.write(item.text); // the text, as it streams
  }
  process.stdout.write("\n");

  const done = await message;
  for (const item of done.content_items) {
    if (item.type === "tool_call.done") console.log(`tool call: ${item.name}(${JSON.stringify(item.arguments)})`);
  }
  const u = done.usage_metadata;
  console.log(`finish_reason: ${done.finish_reason}`);
  console.log(`usage: input ${(u.cached_tokens ?? 0) + (u.prompt_tokens ?? 0)} tokens, output ${(u.thoughts_tokens ?? 0) + (u.response_tokens ?? 0)} tokens ${JSON.stringify(u)}`);
} finally {
  server.close();
}
