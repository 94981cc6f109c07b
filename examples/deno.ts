// Deno: reads a captured MMSP stream (SSE) from a file and prints the events and the message.
//   npm run build && npx deno run --allow-read examples/deno.ts
// In your project: `deno add npm:mmsp-streams` and import from "mmsp-streams" (or "npm:mmsp-streams").
import { UniEventStream } from "mmsp-streams";

const file = await Deno.open(new URL("./sample.sse", import.meta.url));
const stream = new UniEventStream(); // SSE is the default format
for await (const event of file.readable.pipeThrough(stream)) {
  const item = event.content_items[0];
  console.log(event.event_type === "stop" ? `stop (${event.finish_reason})` : item?.type);
}
const message = await stream.message;
console.log(JSON.stringify(message, null, 2));
