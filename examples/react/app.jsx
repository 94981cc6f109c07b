// A chat answer in React 19, rendered from the reader's snapshot alone:
//   const message = useSyncExternalStore(stream.subscribe, stream.snapshot);
// Each item is a `memo` component: React compares snapshots and items by identity, so an item
// re-renders only when it changed (the open item as it grows) and a done item renders once.
// `stream` is a UniEventStream, UniEventBatchStream or MessageAssemblerStream, or what fromResponse /
// fromFetch return. Someone must pull the stream: reading `readable`, or just awaiting `message`.
import { memo, useEffect, useMemo, useSyncExternalStore } from "react";

/** The whole answer: its items, then the usage and the timings once the stop event came. */
export function Answer({ stream, onItemRender }) {
  const message = useSyncExternalStore(stream.subscribe, stream.snapshot);
  return (
    <article className="answer">
      {message.content_items.map((item, i) => (
        <Item key={i} index={i} item={item} onRender={onItemRender} />
      ))}
      {message.finish_reason !== null && <Usage message={message} />}
    </article>
  );
}

/** One item, done or partial; `switch (item.type)` narrows every field of both. */
const Item = memo(function Item({ item, index, onRender }) {
  onRender?.(index, item); // (for the check: how often each item rendered)
  const partial = item.partial === true;
  switch (item.type) {
    case "thinking.done":
      return (
        <details className="thinking" data-partial={partial} open={partial}>
          <summary>{partial ? "Thinking…" : "Thought"}</summary>
          <p>{item.thinking}</p>
        </details>
      );
    case "text.done":
      return <p className="text" data-partial={partial}>{item.text}</p>;
    case "tool_call.done":
      // while it streams, `arguments` is the best-effort parse of the text so far
      return (
        <pre className="tool" data-partial={partial} data-name={item.name}>
          {item.name}({JSON.stringify(item.arguments)})
        </pre>
      );
    case "inline_data.done":
    case "inline_thinking.done":
      return <Media data={item.data} mimeType={item.mime_type} partial={partial} />;
    case "embedding.done":
      return <code className="embedding" data-partial={partial} data-length={item.embedding.length}>[{item.embedding.slice(0, 3).join(", ")}, …] ({item.embedding.length} dimensions)</code>;
    default:
      return null;
  }
});

/** Bytes: a progress line while they arrive, then the image or the player. */
function Media({ data, mimeType, partial }) {
  // (the bytes are shown once the item is done: a Blob copies them once)
  const url = useMemo(() => (partial ? null : URL.createObjectURL(new Blob([data], { type: mimeType }))), [data, mimeType, partial]);
  useEffect(() => () => url && URL.revokeObjectURL(url), [url]);
  if (partial) return <span className="media" data-partial="true" data-bytes={data.length}>{mimeType}: {data.length} bytes…</span>;
  return mimeType.startsWith("image/") ? (
    <img className="media" src={url} alt="" data-bytes={data.length} />
  ) : (
    <audio className="media" controls src={url} data-bytes={data.length} />
  );
}

function Usage({ message }) {
  const u = message.usage_metadata;
  const t = message.timings;
  const firstToken = t.firstEventAt !== null && t.firstByteAt !== null ? `${Math.round(t.firstEventAt - t.firstByteAt)} ms to the first token` : "";
  const rate = t.charactersPerSecond !== null ? `, ${Math.round(t.charactersPerSecond)} characters/s` : "";
  return (
    <footer className="usage">
      <span className="finish">{message.finish_reason}</span>
      {u && <span className="tokens">{` · ${u.prompt_tokens ?? 0} prompt, ${u.thoughts_tokens ?? 0} thoughts, ${u.response_tokens ?? 0} response tokens`}</span>}
      <span className="timings">{firstToken && ` · ${firstToken}${rate}`}</span>
    </footer>
  );
}
