// The page test/relay/ui-chat.mjs opens in Chromium: a React 19 app with @ai-sdk/react's useChat and
// the AI SDK's own DefaultChatTransport, `resume: true`, against the ten-line Worker
// (examples/ai-sdk-relay.ts), as the AI SDK guide shows it. Bundled by esbuild for the browser.
// Query parameters: relay (the Worker's origin), key (its x-relay-key), model, chat (the chat id to
// use; default: the one kept in sessionStorage, or a new one).
// The conversation is kept in sessionStorage without an assistant message still streaming: the relay
// replays an open answer from its start, and useChat with DefaultChatTransport appends that replay to
// the last message it has (an app keeps its messages in its database from onFinish, for the same reason).
// `window.page`: send(text), stop() (useChat's: it only aborts the fetch), stopAnswer() (the DELETE the
// guide tells users to send: the relay stops the model), chatId.
import { useChat } from "@ai-sdk/react";
import { DefaultChatTransport } from "ai";
import { useEffect, useMemo } from "react";
import { createRoot } from "react-dom/client";

const params = new URLSearchParams(location.search);
const api = `${params.get("relay")}/api/chat`;
const headers = params.has("key") ? { "x-relay-key": params.get("key") } : {};
const saved = JSON.parse(sessionStorage.getItem("use-chat") ?? "null") ??
  { id: params.get("chat") ?? crypto.randomUUID().replace(/-/g, ""), messages: [] };

function Part({ part }) {
  if (part.type === "text") return <span className="text">{part.text}</span>;
  if (part.type.startsWith("tool-") || part.type === "dynamic-tool") {
    const name = part.type === "dynamic-tool" ? part.toolName : part.type.slice("tool-".length);
    return <span className="tool" data-name={name} data-state={part.state} data-input={JSON.stringify(part.input ?? null)} />;
  }
  return null;
}

function App() {
  const transport = useMemo(() => new DefaultChatTransport({ api, headers, body: { model: params.get("model") ?? "claude" } }), []);
  const { messages, sendMessage, stop, status, error } = useChat({ id: saved.id, messages: saved.messages, transport, resume: true });
  useEffect(() => {
    const open = status === "streaming" && messages.at(-1)?.role === "assistant";
    sessionStorage.setItem("use-chat", JSON.stringify({ id: saved.id, messages: open ? messages.slice(0, -1) : messages }));
  }, [messages, status]);
  useEffect(() => void (document.documentElement.dataset.ready = "true"), []);
  window.page = {
    chatId: saved.id,
    send: (text) => void sendMessage({ text }),
    stop: () => stop(),
    stopAnswer: async () => (await fetch(`${api}/${saved.id}/stream`, { method: "DELETE", headers })).status,
  };
  return (
    <main>
      <p id="status" data-status={status}>{status}</p>
      <p id="error">{error?.message ?? ""}</p>
      {messages.map((m) => (
        <div className="msg" key={m.id} data-role={m.role} data-id={m.id}>
          {m.parts.map((part, i) => <Part key={i} part={part} />)}
        </div>
      ))}
    </main>
  );
}

createRoot(document.getElementById("root")).render(<App />);
