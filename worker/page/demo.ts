// The demo page's script (bundled with the package's src/ into /demo.js by worker/build.mjs).
//
// It POSTs {model, messages} to /v1/stream and reads the answer with fromFetch and, after every
// event, renders snapshot(): the done items, then the open item as it grows (text so far,
// tool-call arguments parsed best-effort, bytes so far). The final usage and finish reason come
// from the message; an error is shown with its class, its wire type and the rule it names.
// "Drop connection" breaks the current connection like a network failure: fromFetch reconnects to
// the stream's Content-Location with Last-Event-ID (the page shows "reconnecting…") and the
// answer goes on from the next event. "Stop" stops the generation: DELETE on the stream's
// Content-Location (SPEC §8), after which the relay ends the stream with a StreamCancelled error for
// every viewer, this page included (without a kept stream it can only let go of its read).
import { fromFetch, type MessageSnapshot, MmspError, type UniEvent, UpstreamError, type WireFormat } from "../../src/index.ts";

interface Config {
  mode: "relay" | "replay";
  /** The relay keeps streams (a Durable Object per stream): a dropped connection can be resumed. */
  resumable: boolean;
  samples: { model: string; sample: string; description: string }[];
  defaultModel: string;
  /** The relay's provider-backed models (worker/models.ts): answered by a provider, which the answer names. */
  providerModels?: string[];
}

const $ = <T extends HTMLElement = HTMLElement>(id: string): T => document.getElementById(id) as T;
function el<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  props: Record<string, unknown> = {},
  ...children: (Node | string)[]
): HTMLElementTagNameMap[K] {
  const node = Object.assign(document.createElement(tag), props);
  node.append(...children);
  return node;
}

const config: Config = JSON.parse($("config").textContent || "{}");
const query = new URLSearchParams(location.search);

// ---- the form ------------------------------------------------------------------------------------

let modelInput: HTMLInputElement | HTMLSelectElement;
if (config.mode === "replay") {
  const select = el("select", { id: "model" });
  for (const s of config.samples) select.append(el("option", { value: s.model, title: s.description }, s.model));
  for (const m of config.providerModels ?? []) select.append(el("option", { value: m }, `${m} (provider)`));
  modelInput = select;
  $("mode").innerHTML = "Replaying the built-in sample streams (no <code>MMSP_UPSTREAM</code> set), paced like a model.";
} else {
  const input = el("input", { id: "model", placeholder: "model name" });
  input.setAttribute("list", "models");
  const list = el("datalist", { id: "models" });
  for (const s of config.samples) list.append(el("option", { value: s.model }));
  for (const m of config.providerModels ?? []) list.append(el("option", { value: m }));
  modelInput = input;
  $("model-slot").after(list);
  $("mode").innerHTML = "Relaying to the MMSP server named by <code>MMSP_UPSTREAM</code>.";
  $("pace-label").hidden = true;
}
const wanted = query.get("model") ?? config.defaultModel;
if (modelInput instanceof HTMLSelectElement && ![...modelInput.options].some((o) => o.value === wanted)) {
  modelInput.append(el("option", { value: wanted }, wanted)); // a deep link to a model the list does not have
}
modelInput.value = wanted;
$("model-slot").replaceWith(modelInput);
const showHint = (): void => {
  const s = config.samples.find((x) => x.model === modelInput.value);
  $("hint").textContent = config.providerModels?.includes(modelInput.value)
    ? "A provider-backed model: the relay asks the provider with its own key (a fake provider under npm run dev without one)."
    : config.mode === "replay"
    ? s
      ? `${s.sample}.sse — ${s.description.replace(/\s*\(the default sample\)/, "")}. (A sample answers the same whatever the message.)`
      : "Not a built-in sample: the relay will refuse it (404)."
    : "";
};
modelInput.addEventListener("change", showHint);
showHint();
if (query.get("wire") === "ndjson") $<HTMLSelectElement>("wire").value = "ndjson";
if (query.has("pace")) {
  const pace = $<HTMLSelectElement>("pace");
  const value = query.get("pace")!;
  if (![...pace.options].some((o) => o.value === value)) pace.append(el("option", { value }, `${value} ms`));
  pace.value = value;
}

// ---- rendering the snapshot ------------------------------------------------------------------------

type Item = MessageSnapshot["content_items"][number];
interface Shown {
  kind: string;
  node: HTMLElement;
  update(item: Record<string, unknown>, partial: boolean): void;
  done: boolean;
}

let shown: Shown[] = [];
let objectUrls: string[] = [];

const kindOf = (item: Item): string => item.type.replace(/\.(done|delta)$/, "");
const byteSize = (n: number): string => (n < 1024 ? `${n} B` : `${(n / 1024).toFixed(1)} KiB`);

function badge(partial: boolean, streaming = "streaming…"): HTMLElement {
  return el("span", { className: partial ? "badge" : "badge done" }, partial ? streaming : "done");
}

function textBlock(kind: "text" | "thinking"): Shown {
  const body = el("div", { className: "body" });
  const label = el("div", { className: "label" }, kind === "thinking" ? "Thinking" : "Answer");
  const node = el("div", {}, ...(kind === "thinking" ? [label] : []), body);
  return {
    kind,
    node,
    done: false,
    update(item) {
      const text = item[kind] as string;
      if (body.textContent !== text) body.textContent = text;
    },
  };
}

function toolBlock(): Shown {
  const head = el("div", { className: "tool-head" });
  const state = el("span");
  const args = el("pre", { className: "args" });
  const node = el("div", {}, el("div", { className: "label" }, "Tool call", state), head, args);
  return {
    kind: "tool_call",
    node,
    done: false,
    update(item, partial) {
      if (!head.textContent) head.append(String(item.name), el("small", {}, String(item.tool_call_id)));
      args.textContent = JSON.stringify(item.arguments, null, 2);
      state.replaceChildren(badge(partial, "arguments streaming…"));
    },
  };
}

/** Raster images the page shows (no SVG: it can carry script), audio it plays; anything else is a download. */
const RASTER = ["image/png", "image/jpeg", "image/gif", "image/webp", "image/avif"];

function mediaKind(mime: string): "image" | "audio" | "download" {
  const type = mime.split(";")[0]!.trim().toLowerCase();
  if (RASTER.includes(type)) return "image";
  if (/^audio\/[\w.+-]+$/.test(type)) return "audio";
  return "download";
}

function mediaBlock(kind: string): Shown {
  const meta = el("div", { className: "meta" });
  const holder = el("div");
  const label = el("div", { className: "label" }, kind === "inline_thinking" ? "Thinking (media)" : "Media");
  const node = el("div", {}, label, el("div", { className: "media" }, holder, meta));
  return {
    kind,
    node,
    done: false,
    update(item, partial) {
      const data = item.data as Uint8Array;
      const mime = String(item.mime_type);
      if (partial) {
        meta.textContent = `${mime} · receiving… ${byteSize(data.length)}`;
        return;
      }
      // A Blob URL runs with the page's origin: only types that cannot run script keep their type
      // (a text/html or image/svg+xml item opened as itself would run the model's script here).
      const shownAs = mediaKind(mime);
      const url = URL.createObjectURL(
        new Blob([data as Uint8Array<ArrayBuffer>], { type: shownAs === "download" ? "application/octet-stream" : mime }),
      );
      objectUrls.push(url);
      if (shownAs === "image") {
        const img = el("img", { src: url, alt: `${mime} image from the model` });
        img.addEventListener(
          "load",
          () => (meta.textContent = `${mime} · ${img.naturalWidth}×${img.naturalHeight} · ${byteSize(data.length)}`),
        );
        holder.replaceChildren(img);
        label.textContent = kind === "inline_thinking" ? "Thinking (image)" : "Image";
      } else if (shownAs === "audio") {
        holder.replaceChildren(el("audio", { src: url, controls: true, preload: "metadata" }));
        label.textContent = "Audio";
      } else {
        holder.replaceChildren(el("a", { href: url, download: "data.bin", className: "download" }, "download"));
      }
      meta.textContent = `${mime} · ${byteSize(data.length)}`;
    },
  };
}

function embeddingBlock(): Shown {
  const bars = el("div", { className: "vector" });
  const info = el("div", { className: "values" });
  const node = el("div", {}, el("div", { className: "label" }, "Embedding"), bars, info);
  return {
    kind: "embedding",
    node,
    done: false,
    update(item) {
      const v = item.embedding as number[];
      const show = v.slice(0, 64);
      const max = Math.max(1e-9, ...show.map(Math.abs));
      // bars up for positive values, down for negative ones, from the middle line
      bars.replaceChildren(
        ...show.map((x) => {
          const bar = el("i", { className: x < 0 ? "neg" : "", title: String(x) });
          const h = Math.max(1, (Math.abs(x) / max) * 23);
          bar.style.height = `${h}px`;
          bar.style.transform = `translateY(${x < 0 ? h / 2 : -h / 2}px)`;
          return bar;
        }),
      );
      const head = v.slice(0, 6).map((x) => x.toFixed(4)).join(", ");
      info.textContent = `${v.length} dimensions · [${head}${v.length > 6 ? ", …" : ""}]`;
    },
  };
}

function blockFor(kind: string): Shown {
  switch (kind) {
    case "text":
    case "thinking":
      return textBlock(kind);
    case "tool_call":
      return toolBlock();
    case "inline_data":
    case "inline_thinking":
      return mediaBlock(kind);
    case "embedding":
      return embeddingBlock();
    default: {
      const pre = el("pre", { className: "args" });
      return {
        kind,
        node: el("div", {}, el("div", { className: "label" }, kind), pre),
        done: false,
        update: (item) => (pre.textContent = JSON.stringify(item)),
      };
    }
  }
}

/** Brings the page up to the snapshot: new items appear, the open one grows, finished ones settle. */
function render(snapshot: MessageSnapshot): void {
  const items = snapshot.content_items;
  for (let i = 0; i < items.length; i++) {
    const item = items[i]!;
    let s = shown[i];
    if (s?.done) continue;
    if (!s) {
      s = shown[i] = blockFor(kindOf(item));
      s.node.classList.add("item");
      s.node.dataset.kind = s.kind;
      $("output").append(s.node);
    }
    const partial = "partial" in item && item.partial === true;
    s.node.dataset.partial = String(partial);
    s.update(item as unknown as Record<string, unknown>, partial);
    s.done = !partial;
  }
}

/** "first event 120 ms · first content 480 ms · stop 2.31 s · 412 chars/s": the client-side timings, from the request. */
function timingText(t: MessageSnapshot["timings"], start: number): string {
  const at = (
    v: number | null,
  ): string => (v === null ? "—" : v - start < 1000 ? `${Math.round(v - start)} ms` : `${((v - start) / 1000).toFixed(2)} s`);
  const rate = t.charactersPerSecond === null ? "—" : `${Math.round(t.charactersPerSecond)} chars/s`;
  return `first event ${at(t.firstEventAt)} · first content ${at(t.firstContentAt)} · stop ${at(t.stopAt)} · ${rate}`;
}

function renderFinish(snapshot: MessageSnapshot, start: number): void {
  const u = snapshot.usage_metadata;
  /** "12 cached + 30 prompt" from the members a server reported (null: not reported). */
  const tokens = (pairs: [number | null, string][]): string =>
    pairs.filter(([n]) => n !== null).map(([n, what]) => `${n} ${what}`).join(" + ") || "not reported";
  const parts: [string, string][] = [["finish reason", String(snapshot.finish_reason)]];
  if (u) {
    parts.push(["input tokens", tokens([[u.cached_tokens, "cached"], [u.prompt_tokens, "prompt"]])]);
    parts.push(["output tokens", tokens([[u.thoughts_tokens, "thoughts"], [u.response_tokens, "response"]])]);
  }
  parts.push(["timings", timingText(snapshot.timings, start)]);
  $("finish").replaceChildren(...parts.map(([k, v]) => el("span", {}, `${k}: `, el("b", {}, v))));
  $("finish").classList.add("shown");
  $("finish").dataset.finishReason = String(snapshot.finish_reason);
}

function renderError(e: unknown): void {
  const box = $("error");
  const rows: [string, string][] = [];
  let title = e instanceof Error ? e.name : "Error";
  if (e instanceof UpstreamError) {
    if (e.errorType) title += ` · ${e.errorType}`;
    if (e.status !== null) rows.push(["status", String(e.status)]);
    const cause = e.cause;
    if (cause instanceof MmspError) {
      rows.push(["cause", cause.name]);
      if (cause.rule) rows.push(["rule", cause.rule]);
      if (cause.eventIndex !== undefined) rows.push(["upstream event", String(cause.eventIndex)]);
      if (cause.preview && !e.message.includes(cause.preview)) rows.push(["preview", cause.preview]);
    }
  } else if (e instanceof MmspError) {
    if (e.rule) rows.push(["rule", e.rule]);
    if (e.eventIndex !== undefined) rows.push(["event", String(e.eventIndex)]);
    if (e.preview && !e.message.includes(e.preview)) rows.push(["preview", e.preview]);
  }
  box.replaceChildren(
    el("div", { className: "title" }, title),
    el("div", { className: "message" }, e instanceof Error ? e.message : String(e)),
    ...(rows.length ? [el("dl", {}, ...rows.flatMap(([k, v]) => [el("dt", {}, k), el("dd", {}, v)]))] : []),
  );
  box.dataset.errorClass = e instanceof Error ? e.name : "Error";
  box.dataset.errorType = e instanceof UpstreamError ? (e.errorType ?? "") : "";
  box.dataset.rule =
    (e instanceof UpstreamError && e.cause instanceof MmspError ? e.cause.rule : e instanceof MmspError ? e.rule : undefined) ?? "";
  box.classList.add("shown");
  $("output").classList.add("quiet"); // the error says what happened: no "press Send" placeholder under it
  markOpenItems("interrupted");
}

/** The open items' badge: the answer ended before they were done ("interrupted", or "stopped" on purpose). */
function markOpenItems(how: "interrupted" | "stopped"): void {
  for (const s of shown) {
    if (s.done) continue;
    s.node.dataset.partial = how;
    const cut = el("span", { className: `badge ${how === "stopped" ? "stopped" : "cut"}` }, how);
    const current = s.node.querySelector(".badge");
    if (current) current.replaceWith(cut);
    else s.node.append(cut);
  }
}

/** A deliberate Stop (the relay's StreamCancelled, or the page's own abort): said as stopped, not as an error. */
function renderStopped(e: unknown): void {
  const box = $("error");
  box.replaceChildren(
    el("div", { className: "title" }, "Stopped"),
    el("div", { className: "message" }, "You stopped the answer: the model stopped generating; what arrived before stays above."),
  );
  box.dataset.errorClass = e instanceof Error ? e.name : "Error";
  box.dataset.errorType = e instanceof UpstreamError ? (e.errorType ?? "") : "";
  box.dataset.rule = "";
  box.classList.add("shown", "stopped");
  $("output").classList.add("quiet");
  markOpenItems("stopped");
}

function setStatus(state: "idle" | "streaming" | "reconnecting" | "stopping" | "done" | "stopped" | "error", text: string): void {
  $("status").dataset.state = state;
  $("status-text").textContent = text;
}

function logNote(text: string): void {
  $("log").append(el("li", { className: "note" }, text));
}

function logEvent(event: UniEvent, ms: number, count: number): void {
  const item = event.content_items[0];
  const what = event.event_type === "stop" ? `stop · ${event.finish_reason}` : (item?.type ?? "?");
  $("log").append(el("li", {}, `${ms.toFixed(0).padStart(5)} ms  ${what}`));
  $("log-summary").textContent = `Events (${count})`;
}

// ---- one run ---------------------------------------------------------------------------------------

let running: AbortController | null = null;
/** Breaks the current connection (set while an answer that can be resumed is streaming). */
let dropConnection: (() => void) | null = null;
/** The run the Stop button stopped (its end is shown as stopped, not as an error). */
let stopping: AbortController | null = null;

/** The current stream's Content-Location (a relay that keeps streams names it): where Stop sends DELETE. */
let streamLocation: string | null = null;

const events = (n: number): string => `${n} event${n === 1 ? "" : "s"}`;

async function run(): Promise<void> {
  running?.abort();
  const abort = (running = new AbortController());
  for (const url of objectUrls) URL.revokeObjectURL(url);
  objectUrls = [];
  shown = [];
  $("output").replaceChildren();
  $("output").classList.remove("quiet");
  $("log").replaceChildren();
  $("log-summary").textContent = "Events (0)";
  for (const id of ["error", "finish"]) {
    $(id).classList.remove("shown", "stopped");
    $(id).replaceChildren();
  }
  $<HTMLButtonElement>("stop").disabled = false;
  streamLocation = null;
  delete document.documentElement.dataset.stream;
  setStatus("streaming", "waiting for the first event…");

  const format = $<HTMLSelectElement>("wire").value as WireFormat;
  const pace = config.mode === "replay" ? $<HTMLSelectElement>("pace").value : "";
  const body = {
    model: modelInput.value.trim(),
    messages: [{ role: "user", content_items: [{ type: "text.done", text: $<HTMLTextAreaElement>("prompt").value }] }],
  };
  const t0 = performance.now();
  let count = 0;
  let drops = 0;
  /**
   * fetch, with each answer's body made breakable: "Drop connection" errors it like a network
   * failure (and lets go of the real connection). A GET with Last-Event-ID is fromFetch resuming.
   */
  const breakable = async (input: RequestInfo | URL, init?: RequestInit): Promise<Response> => {
    const resuming = new Headers(init?.headers).get("last-event-id");
    if (init?.method === "GET") {
      drops++;
      setStatus("reconnecting", `reconnecting… (after ${events(count)})`);
      logNote(`connection dropped · resuming after event ${resuming ?? "none"}`);
    }
    const response = await fetch(input, init);
    const provider = response.headers.get("x-mmsp-provider");
    if (provider !== null) logNote(`answered by the provider ${provider}`);
    if (!response.ok || !response.body) return response;
    const reader = response.body.getReader();
    let cut: ((reason: unknown) => void) | null = null;
    const body = new ReadableStream<Uint8Array>({
      start(controller) {
        cut = (reason) => {
          reader.cancel(reason).catch(() => {});
          controller.error(reason);
        };
      },
      async pull(controller) {
        const { done, value } = await reader.read();
        if (done) controller.close();
        else controller.enqueue(value);
      },
      cancel: (reason) => reader.cancel(reason),
    });
    const location = response.headers.get("content-location");
    if (location !== null && running === abort) {
      streamLocation = new URL(location, response.url || document.baseURI).href;
      document.documentElement.dataset.stream = streamLocation;
    }
    dropConnection = location !== null ? () => cut?.(new TypeError("network error (connection dropped by the demo)")) : null;
    $<HTMLButtonElement>("drop").disabled = dropConnection === null;
    if (init?.method === "GET") setStatus("streaming", `resumed · streaming… ${events(count)}`);
    const wrapped = new Response(body, { status: response.status, statusText: response.statusText, headers: response.headers });
    // keep the url: fromFetch trusts a Content-Location only from the origin asked, and tells it by the url
    Object.defineProperty(wrapped, "url", { value: response.url });
    return wrapped;
  };
  try {
    const { readable, message, snapshot } = fromFetch(
      `/v1/stream${pace ? `?pace=${encodeURIComponent(pace)}` : ""}`,
      {
        method: "POST",
        headers: { "content-type": "application/json", accept: format === "ndjson" ? "application/x-ndjson" : "text/event-stream" },
        body: JSON.stringify(body),
      },
      { format, client: "relay", signal: abort.signal, fetch: breakable, reconnect: { retries: 3, delayMs: 250 } },
    );
    for await (const event of readable) {
      count++;
      render(snapshot());
      logEvent(event, performance.now() - t0, count);
      if (!["reconnecting", "stopping"].includes($("status").dataset.state ?? "")) {
        setStatus("streaming", `${drops ? "resumed · " : ""}streaming… ${events(count)}`);
      }
    }
    await message;
    const final = snapshot();
    render(final);
    renderFinish(final, t0);
    setStatus("done", `done · ${events(count)} in ${((performance.now() - t0) / 1000).toFixed(2)} s${drops ? ` · resumed ${drops}×` : ""}`);
  } catch (e) {
    if (abort.signal.aborted && running !== abort) return; // replaced by a newer run
    // this page's Stop, or another viewer's (the relay's StreamCancelled): stopped on purpose, not failed
    const stopped = stopping === abort || abort.signal.aborted || (e instanceof UpstreamError && e.errorType === "StreamCancelled");
    if (stopped) renderStopped(e);
    else renderError(e);
    // a stream ended early says what it cost so far (SPEC §10): the provider's counts, or the relay's estimate
    if (e instanceof UpstreamError && e.usageMetadata) {
      const u = e.usageMetadata;
      const sum = (a: number | null, b: number | null) => (a ?? 0) + (b ?? 0);
      logNote(
        `this answer cost ${sum(u.cached_tokens, u.prompt_tokens)} input + ${sum(u.thoughts_tokens, u.response_tokens)} output tokens${
          e.usageEstimated ? " (estimated by the relay)" : ""
        }`,
      );
    }
    setStatus(stopped ? "stopped" : "error", `${stopped ? "stopped" : "error"} after ${events(count)}`);
  } finally {
    void showUsage();
    if (running === abort) {
      running = null;
      dropConnection = null;
      streamLocation = null;
      $<HTMLButtonElement>("stop").disabled = true;
      $<HTMLButtonElement>("drop").disabled = true;
    }
  }
}

$("form").addEventListener("submit", (e) => {
  e.preventDefault();
  void run();
});
$("prompt").addEventListener("keydown", (e) => {
  if (e.key === "Enter" && !e.shiftKey) {
    e.preventDefault();
    void run();
  }
});
$("stop").addEventListener("click", () => void stop());

/**
 * Stop: DELETE on the stream's Content-Location stops the generation itself (the relay aborts its
 * upstream request); the read then ends with the relay's StreamCancelled event. Without a kept stream
 * (or when the DELETE fails) the page can only let go of its own read.
 */
async function stop(): Promise<void> {
  const current = running;
  if (!current) return;
  stopping = current; // the StreamCancelled that ends this run is this Stop's, not a failure
  $<HTMLButtonElement>("stop").disabled = true;
  $<HTMLButtonElement>("drop").disabled = true;
  dropConnection = null;
  if (streamLocation !== null) {
    setStatus("stopping", "stopping…");
    try {
      // DELETE is idempotent (204 once ended): a 503 (a proxy that could not pass it on) is tried again
      let res = await fetch(streamLocation, { method: "DELETE" });
      for (let i = 0; i < 3 && res.status === 503; i++) res = await fetch(streamLocation, { method: "DELETE" });
      if (res.status === 204) return;
      logNote(`DELETE ${streamLocation}: ${res.status}`);
    } catch (e) {
      logNote(`DELETE ${streamLocation}: ${e instanceof Error ? e.message : String(e)}`);
    }
  }
  current.abort(new DOMException("Stopped by the user", "AbortError"));
}
$("drop").addEventListener("click", () => {
  if (!dropConnection) return;
  dropConnection();
  dropConnection = null;
  $<HTMLButtonElement>("drop").disabled = true;
  setStatus("reconnecting", "connection dropped · reconnecting…");
});
if (!config.resumable) $("drop").hidden = true;
/** The caller's own usage today (GET /v1/usage: this client's principal), when the relay serves provider models. */
async function showUsage(): Promise<void> {
  if (!config.providerModels?.length) return;
  try {
    const res = await fetch("/v1/usage");
    if (!res.ok) return;
    const { data } = (await res.json()) as { data: Record<string, number | string>[] };
    const today = new Date().toISOString().slice(0, 10);
    const rows = data.filter((r) => r.day === today);
    const n = (key: string) => rows.reduce((s, r) => s + Number(r[key]), 0);
    $("usage").textContent = rows.length === 0 ? "" : `Your usage today: ${n("requests")} requests, ${n("input_tokens")} input + ` +
      `${n("output_tokens")} output tokens (${n("estimated_tokens")} estimated, ${n("stopped")} stopped).`;
  } catch {
    // (the usage line is a courtesy: the page works without it)
  }
}
void showUsage();
document.documentElement.dataset.ready = "true";
if (query.has("run")) void run();
