/**
 * UI message chunks → an HTTP `Response` in the AI SDK's framing: one `data: <chunk JSON>\n\n` per
 * chunk, `data: [DONE]\n\n` at the end, with the headers `useChat`'s transport expects
 * (`x-vercel-ai-ui-message-stream: v1`). For servers and Workers.
 */
import { fail } from "../internal/options.js";
import type { UIMessageChunk } from "./types.js";

/** The AI SDK's UI message stream headers (protocol v1). */
export const UI_MESSAGE_STREAM_HEADERS: Readonly<Record<string, string>> = Object.freeze({
  "content-type": "text/event-stream",
  "cache-control": "no-cache",
  connection: "keep-alive",
  "x-vercel-ai-ui-message-stream": "v1",
  "x-accel-buffering": "no",
});

/**
 * The bytes of the stream, read one chunk at a time as the body is read (backpressure); a
 * cancelled body cancels `readable`. Should `readable` itself error, that becomes an `error`
 * chunk and `[DONE]`, never a cut connection.
 */
function sseBody(readable: ReadableStream<UIMessageChunk>): ReadableStream<Uint8Array> {
  const encoder = new TextEncoder();
  const reader = readable.getReader();
  const frame = (value: unknown): Uint8Array => encoder.encode(`data: ${JSON.stringify(value)}\n\n`);
  return new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        try {
          const { done, value } = await reader.read();
          if (!done) return controller.enqueue(frame(value));
        } catch (error) {
          const errorText = error instanceof Error ? error.message || error.name : String(error);
          controller.enqueue(frame({ type: "error", errorText }));
        }
        controller.enqueue(encoder.encode("data: [DONE]\n\n"));
        controller.close();
      },
      cancel(reason) {
        return reader.cancel(reason);
      },
    },
    { highWaterMark: 0 },
  );
}

/**
 * A `Response` carrying a UI message stream (e.g. `events.pipeThrough(new UIMessageChunkStream())`).
 * `init` sets the status and adds or overrides headers (CORS, for instance).
 */
export function toUIMessageStreamResponse(readable: ReadableStream<UIMessageChunk>, init: ResponseInit = {}): Response {
  if (!(readable instanceof ReadableStream)) {
    fail(TypeError, "toUIMessageStreamResponse: readable", "a ReadableStream of UI message chunks", readable);
  }
  if (init === null || typeof init !== "object") fail(TypeError, "toUIMessageStreamResponse: init", "a ResponseInit object", init);
  const headers = new Headers(UI_MESSAGE_STREAM_HEADERS);
  new Headers(init.headers).forEach((value, name) => headers.set(name, value));
  return new Response(sseBody(readable), { status: init.status ?? 200, statusText: init.statusText, headers });
}
