// The page the check drives (scripts/react-example-check.mjs): streams one sample into <Answer> —
// through UniEventStream in small chunks, or through fromFetch over a connection that drops halfway
// and is resumed — and reports what React rendered, what the message is, and how often each item
// rendered.
import { createRoot } from "react-dom/client";
import { UniEventStream, fromFetch } from "mmsp-streams";
import { Answer } from "./app.jsx";

const pause = (ms) => new Promise((r) => setTimeout(r, ms));
const bytes = (text) => new TextEncoder().encode(text);

/** The sample's bytes in small chunks, a little apart (as a slow network delivers them). */
function trickle(data, size = 97) {
  let at = 0;
  return new ReadableStream({
    async pull(c) {
      await pause(1);
      if (at >= data.length) return c.close();
      c.enqueue(data.subarray(at, at + size));
      at += size;
    },
  });
}

/** A fetch whose first answer breaks after half the events; a resume (Last-Event-ID: n) answers from n + 1. */
function droppingFetch(text) {
  const records = text.split(/\n\n/).filter((r) => /^data: /m.test(r) && !r.includes("[DONE]"));
  let calls = 0;
  const fetch = async (_input, init) => {
    fetch.calls = ++calls;
    const headers = { "content-type": "text/event-stream", "content-location": "/v1/streams/s1" };
    const last = new Headers(init?.headers).get("last-event-id");
    const from = last === null ? 0 : Number(last) + 1;
    const cut = calls === 1 ? Math.ceil(records.length / 2) : records.length;
    const body = records.slice(from, cut).map((r, i) => `id: ${from + i}\n${r}\n\n`).join("") + (calls === 1 ? "" : "data: [DONE]\n\n");
    const data = bytes(body);
    let at = 0;
    const stream = new ReadableStream({
      async pull(c) {
        await pause(1);
        if (at < data.length) {
          c.enqueue(data.subarray(at, at + 97));
          at += 97;
        } else if (calls === 1) c.error(new TypeError("network error (dropped by the test)"));
        else c.close();
      },
    });
    return new Response(stream, { headers });
  };
  return fetch;
}

/** What the message should look like on the page, item by item (the same reading as the DOM's). */
function expected(message) {
  return message.content_items.map((item) => {
    switch (item.type) {
      case "thinking.done": return item.thinking;
      case "text.done": return item.text;
      case "tool_call.done": return `${item.name}(${JSON.stringify(item.arguments)})`;
      case "inline_data.done": case "inline_thinking.done": return `${item.data.length} bytes`;
      case "embedding.done": return `${item.embedding.length} dimensions`;
      default: return "";
    }
  });
}

function shown(container) {
  return [...container.querySelector(".answer").children].filter((e) => !e.classList.contains("usage")).map((e) => {
    if (e.classList.contains("thinking")) return e.querySelector("p").textContent;
    if (e.classList.contains("media")) return `${e.dataset.bytes} bytes`;
    if (e.classList.contains("embedding")) return `${e.dataset.length} dimensions`;
    return e.textContent;
  });
}

window.check = async (text, via) => {
  const container = document.createElement("div");
  document.body.append(container);
  const root = createRoot(container);
  const renders = new Map(); // index → { partial: n, done: n }
  const onItemRender = (i, item) => {
    const r = renders.get(i) ?? { partial: 0, done: 0 };
    r[item.partial ? "partial" : "done"]++;
    renders.set(i, r);
  };
  let answer;
  const fetch = droppingFetch(text);
  if (via === "fetch") answer = fromFetch("https://relay.test/v1/stream", { method: "POST", body: "{}" }, { fetch, reconnect: { retries: 2, delayMs: 1 } });
  else {
    answer = new UniEventStream();
    trickle(bytes(text)).pipeTo(answer.writable).catch(() => {});
  }
  root.render(<Answer stream={answer} onItemRender={onItemRender} />);
  let message = null;
  let error = null;
  try {
    message = await answer.message; // drains the stream: nobody reads `readable` here
  } catch (e) {
    error = `${e.name}: ${e.message}`;
  }
  await pause(50); // React commits the last snapshot
  const result = {
    error,
    requests: fetch.calls ?? 0,
    expected: message ? expected(message) : null,
    shown: shown(container),
    snapshotItems: answer.snapshot().content_items.length,
    usage: container.querySelector(".usage")?.textContent ?? null,
    renders: [...renders.entries()].sort((a, b) => a[0] - b[0]).map(([, r]) => r),
  };
  root.unmount();
  container.remove();
  return result;
};
