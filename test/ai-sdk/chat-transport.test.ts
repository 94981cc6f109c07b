// MmspChatTransport driven by the real AI SDK's chat (`ai`'s AbstractChat, what useChat wraps), in
// Node, against a fake relay on 127.0.0.1 that keeps answers as the package's Worker does: POST
// /api/chat streams an answer (ETag = its stream), GET /api/chat/<id>/stream replays the active one
// from its start (204 when none is active; If-Match names one), DELETE cancels it. Checked: a dropped
// connection (cut mid-answer, more than once) resumes into the same message with no chunk twice;
// stop() sends the DELETE (If-Match the answer) within a second and the chat is ready; a reload
// (a new chat, resumeStream()) rebuilds the message, stop() then cancels it too; a resume replaced
// by a newer one is not a stop; 204 → nothing; a redirect to another origin is not followed.
// Imports the built dist/ (npm run build first).
import http from "node:http";
import type { AddressInfo } from "node:net";
import { AbstractChat, type ChatState, type ChatStatus, type UIMessage as AiUIMessage } from "ai";
import { afterAll, beforeAll, expect, test } from "vitest";
import { MmspChatTransport, type UIMessageChunk } from "../../dist/ai-sdk/index.js";

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

// ---- the fake relay ---------------------------------------------------------------------------------

const PACE_MS = 15;
const WORDS = 40;

interface Answer {
  etag: string;
  chunks: UIMessageChunk[];
  startedAt: number;
  cancelledAt: number | null;
  replayCut?: boolean;
}
interface Seen {
  method: string;
  url: string;
  headers: http.IncomingHttpHeaders;
  at: number;
}

const chats = new Map<string, Answer>();
const seen: Seen[] = [];
let n = 0;

/** A deterministic answer: start, one text part of WORDS deltas, finish. */
function answerChunks(messageId: string, words = WORDS): UIMessageChunk[] {
  const chunks: UIMessageChunk[] = [{ type: "start", messageId }, { type: "text-start", id: "text-0" }];
  for (let i = 0; i < words; i++) chunks.push({ type: "text-delta", id: "text-0", delta: `w${i} ` });
  chunks.push({ type: "text-end", id: "text-0" }, { type: "finish", finishReason: "stop" });
  return chunks;
}
const fullText = (words = WORDS): string => Array.from({ length: words }, (_, i) => `w${i} `).join("");

/** When chunk i of an answer exists (the generation's pace), or never after a cancel. */
const readyAt = (a: Answer, i: number): number => a.startedAt + i * PACE_MS;
const ended = (a: Answer): boolean => a.cancelledAt !== null || Date.now() >= readyAt(a, a.chunks.length - 1);

/** Streams an answer from its start; `dropAfter`: the connection is cut after that many chunks. */
async function stream(res: http.ServerResponse, a: Answer, dropAfter = Infinity): Promise<void> {
  res.writeHead(200, { "content-type": "text/event-stream", "x-vercel-ai-ui-message-stream": "v1", etag: a.etag });
  for (let i = 0; i < a.chunks.length; i++) {
    if (res.destroyed) return;
    if (i >= dropAfter) return void res.socket?.destroy();
    const wait = readyAt(a, i) - Date.now();
    if (wait > 0 && a.cancelledAt === null) await sleep(wait);
    if (a.cancelledAt !== null && readyAt(a, i) > a.cancelledAt) {
      res.write(`data: ${JSON.stringify({ type: "error", errorText: "the stream was cancelled" })}\n\n`);
      break;
    }
    res.write(`data: ${JSON.stringify(a.chunks[i])}\n\n`);
  }
  res.end("data: [DONE]\n\n");
}

const server = http.createServer(async (req, res) => {
  let text = "";
  for await (const part of req) text += part;
  seen.push({ method: req.method!, url: req.url!, headers: req.headers, at: Date.now() });
  const url = new URL(req.url!, "http://x");
  if (url.pathname === "/redirect/api/chat" || url.pathname.startsWith("/redirect/")) {
    return res.writeHead(307, { location: `${other}/api/chat` }).end();
  }
  if (req.method === "POST" && url.pathname === "/api/chat") {
    const body = JSON.parse(text) as { id: string; messages: AiUIMessage[]; dropAfter?: number; words?: number };
    const a: Answer = { etag: `"s${++n}"`, chunks: answerChunks(`m-${body.id}-${n}`, body.words), startedAt: Date.now(), cancelledAt: null };
    chats.set(body.id, a);
    return stream(res, a, body.dropAfter);
  }
  const m = /^\/api\/chat\/([^/]+)\/stream$/.exec(url.pathname);
  if (m) {
    const a = chats.get(decodeURIComponent(m[1]!));
    const ifMatch = req.headers["if-match"];
    if (!a) return res.writeHead(204).end();
    if (ifMatch !== undefined && ifMatch !== a.etag) return res.writeHead(412).end();
    if (req.method === "DELETE") {
      a.cancelledAt ??= Date.now();
      return res.writeHead(204).end();
    }
    if (ifMatch === undefined && ended(a)) return res.writeHead(204).end();
    // x-drop-replay: the first replay is cut too, after that many chunks
    const drop = req.headers["x-drop-replay"] && !a.replayCut ? Number(req.headers["x-drop-replay"]) : Infinity;
    if (drop !== Infinity) a.replayCut = true;
    return stream(res, a, drop);
  }
  res.writeHead(404).end();
});
// another origin: counts what reaches it (nothing should)
const otherSeen: Seen[] = [];
const otherServer = http.createServer((req, res) => {
  otherSeen.push({ method: req.method!, url: req.url!, headers: req.headers, at: Date.now() });
  res.writeHead(200, { "content-type": "text/event-stream" }).end("data: [DONE]\n\n");
});
let base = "";
let other = "";
beforeAll(async () => {
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  await new Promise<void>((r) => otherServer.listen(0, "127.0.0.1", r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  other = `http://127.0.0.1:${(otherServer.address() as AddressInfo).port}`;
});
afterAll(() => {
  server.closeAllConnections();
  server.close();
  otherServer.close();
});

// ---- the AI SDK's chat, in Node ---------------------------------------------------------------------

class State implements ChatState<AiUIMessage> {
  status: ChatStatus = "ready";
  error: Error | undefined = undefined;
  constructor(public messages: AiUIMessage[] = []) {}
  pushMessage = (m: AiUIMessage): void => void this.messages.push(m);
  popMessage = (): void => void this.messages.pop();
  replaceMessage = (i: number, m: AiUIMessage): void => void (this.messages[i] = m);
  snapshot = <T>(thing: T): T => structuredClone(thing);
}

interface Finish {
  message: AiUIMessage;
  isAbort: boolean;
  isDisconnect: boolean;
  isError: boolean;
}

class Chat extends AbstractChat<AiUIMessage> {
  readonly finishes: Finish[] = [];
  readonly errors: Error[] = [];
  readonly chunks: string[] = [];
  constructor(id: string, transport: MmspChatTransport<AiUIMessage>, messages: AiUIMessage[] = []) {
    const state = new State(messages);
    super({
      id,
      transport,
      state,
      onFinish: (f) => void this.finishes.push(f),
      onError: (e) => void this.errors.push(e),
    });
  }
}

/** A transport whose chunks are also recorded (to count duplicates). */
function transportFor(api = `${base}/api/chat`, body: object = {}, extra: Partial<ConstructorParameters<typeof MmspChatTransport>[0]> = {}) {
  const delivered: string[] = [];
  const transport = new MmspChatTransport<AiUIMessage>({ api, body, reconnectDelayMs: 20, ...extra });
  const wrap = (s: ReadableStream<UIMessageChunk>): ReadableStream<UIMessageChunk> =>
    s.pipeThrough(new TransformStream({ transform: (c, ctl) => (delivered.push(JSON.stringify(c)), ctl.enqueue(c)) }));
  const send = transport.sendMessages.bind(transport);
  const reconnect = transport.reconnectToStream.bind(transport);
  transport.sendMessages = async (o) => wrap(await send(o));
  transport.reconnectToStream = async (o) => {
    const s = await reconnect(o);
    return s && wrap(s);
  };
  return { transport, delivered };
}

const textOf = (m: AiUIMessage | undefined): string => (m?.parts ?? []).map((p) => (p.type === "text" ? p.text : "")).join("");
const chatId = (): string => `c${Math.random().toString(36).slice(2)}`;
const deletes = (id: string): Seen[] => seen.filter((s) => s.method === "DELETE" && s.url.includes(`/${id}/stream`));
async function until(cond: () => boolean, ms = 3000): Promise<void> {
  const end = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > end) throw new Error("timed out");
    await sleep(10);
  }
}

// ---- the tests --------------------------------------------------------------------------------------

test("an answer streams into the message; the POST is DefaultChatTransport's (id, messages, trigger, body)", async () => {
  const id = chatId();
  const { transport } = transportFor(`${base}/api/chat`, { model: "m", config: { temperature: 0 } });
  const chat = new Chat(id, transport);
  await chat.sendMessage({ text: "Hi" });
  expect(chat.status).toBe("ready");
  expect(chat.messages.map((m) => m.role)).toEqual(["user", "assistant"]);
  expect(textOf(chat.messages[1])).toBe(fullText());
  expect(chat.finishes.at(-1)).toMatchObject({ isAbort: false, isError: false });
  expect(deletes(id)).toEqual([]);
});

test("a connection dropped mid-answer, twice, resumes (If-Match the answer) into the same message: no chunk twice, none lost", async () => {
  const id = chatId();
  const { transport, delivered } = transportFor(`${base}/api/chat`, { dropAfter: 7 }, { headers: { "x-drop-replay": "20" } });
  const chat = new Chat(id, transport);
  await chat.sendMessage({ text: "Hi" });
  expect(chat.errors).toEqual([]);
  expect(chat.status).toBe("ready");
  expect(textOf(chat.messages[1])).toBe(fullText());
  expect(delivered.length).toBe(WORDS + 4);
  expect(new Set(delivered).size).toBe(delivered.length); // every chunk differs: none twice
  const gets = seen.filter((s) => s.method === "GET" && s.url.includes(`/${id}/stream`));
  expect(gets.length).toBe(2);
  expect(gets.every((g) => g.headers["if-match"] === chats.get(id)!.etag)).toBe(true);
  expect(deletes(id)).toEqual([]);
});

test("stop() mid-answer: the DELETE (If-Match the answer) reaches the server within a second; the chat is ready with what arrived", async () => {
  const id = chatId();
  const { transport } = transportFor();
  const chat = new Chat(id, transport);
  const sending = chat.sendMessage({ text: "Hi" });
  await until(() => textOf(chat.messages[1]).length > 10);
  const t = Date.now();
  await chat.stop();
  await sending;
  await until(() => deletes(id).length === 1, 1000);
  expect(deletes(id)[0]!.at - t).toBeLessThan(1000);
  expect(deletes(id)[0]!.headers["if-match"]).toBe(chats.get(id)!.etag);
  expect(chat.status).toBe("ready");
  expect(chat.finishes.at(-1)).toMatchObject({ isAbort: true });
  expect(textOf(chat.messages[1]).length).toBeLessThan(fullText().length);
  await sleep(50);
  expect(deletes(id).length).toBe(1);
});

test("after a reload: a new chat with the same id, resumeStream() (useChat's resume: true) rebuilds the whole message; 204 when none is active", async () => {
  const id = chatId();
  const first = new Chat(id, transportFor().transport);
  const sending = first.sendMessage({ text: "Hi" });
  await until(() => textOf(first.messages[1]).length > 10);
  // "reload": a new page with the conversation so far (the server's answer goes on; no stop)
  const userMessage = structuredClone(first.messages[0]!);
  const { transport, delivered } = transportFor();
  const reloaded = new Chat(id, transport, [userMessage]);
  await reloaded.resumeStream();
  expect(reloaded.errors).toEqual([]);
  expect(reloaded.messages.map((m) => m.role)).toEqual(["user", "assistant"]);
  expect(textOf(reloaded.messages[1])).toBe(fullText());
  expect(reloaded.messages[1]!.id).toBe(first.messages[1]!.id); // the replay's start chunk: the same message id
  expect(delivered.length).toBe(WORDS + 4);
  await sending;
  // ended now: nothing to resume
  const later = new Chat(id, transportFor().transport, [userMessage]);
  await later.resumeStream();
  expect(later.messages.length).toBe(1);
  expect(later.status).toBe("ready");
  expect(deletes(id)).toEqual([]);
});

test("stop() on a resumed answer cancels it server-side; a resume replaced by a newer one is not a stop", async () => {
  const id = chatId();
  const first = new Chat(id, transportFor(`${base}/api/chat`, { words: 200 }).transport);
  void first.sendMessage({ text: "Hi" });
  await until(() => textOf(first.messages[1]).length > 10);
  const userMessage = structuredClone(first.messages[0]!);
  const reloaded = new Chat(id, transportFor().transport, [userMessage]);
  const one = reloaded.resumeStream();
  const two = reloaded.resumeStream(); // useChat in React's strict mode: the first is aborted, not stopped
  await until(() => textOf(reloaded.messages[1]).length > 30);
  await sleep(50);
  expect(deletes(id)).toEqual([]);
  const t = Date.now();
  await reloaded.stop();
  await Promise.all([one, two]);
  await until(() => deletes(id).length === 1, 1000);
  expect(deletes(id)[0]!.at - t).toBeLessThan(1000);
  expect(deletes(id)[0]!.headers["if-match"]).toBe(chats.get(id)!.etag);
  expect(reloaded.status).toBe("ready");
});

test("a redirect to another origin is not followed: nothing reaches it, the send fails", async () => {
  const id = chatId();
  const chat = new Chat(id, transportFor(`${base}/redirect/api/chat`, {}, { headers: { "x-api-key": "secret" } }).transport);
  await chat.sendMessage({ text: "Hi" });
  expect(chat.status).toBe("error");
  expect(otherSeen).toEqual([]);
});

test("options are checked: a typo or a wrong type fails at once", () => {
  expect(() => new MmspChatTransport({ apii: "/x" } as never)).toThrow(/apii/);
  expect(() => new MmspChatTransport({ maxReconnects: -1 })).toThrow(RangeError);
  expect(new MmspChatTransport().resumeStreamIsReplay).toBe(true);
});

test("the answer's SSE is read as the standard says: CRLF / CR line ends, a line end or a character split across pieces, comments, multi-line data; [DONE] ends it", async () => {
  const utf8 = new TextEncoder();
  const whole = utf8.encode(
    'data: {"type":"start","messageId":"m"}\r\n\r\n: a comment\r' +
      '\rdata: {"type":"text-start","id":"t"}\r\n\r\n' +
      'data: {"type":"text-delta","id":"t",\ndata: "delta":"é€😀"}\n\n' +
      'event: x\nid: 3\ndata: {"type":"text-end","id":"t"}\r\n\r\n' +
      'data: {"type":"finish"}\n\ndata: [DONE]\n\n',
  );
  // cut into 1..7-byte pieces: inside \r\n, inside multi-byte characters
  const pieces: Uint8Array[] = [];
  for (let at = 0, k = 1; at < whole.length; at += k, k = (k % 7) + 1) pieces.push(whole.subarray(at, at + k));
  const fetchFake = async (): Promise<Response> =>
    new Response(new ReadableStream({ start: (c) => (pieces.forEach((p) => c.enqueue(p)), c.close()) }), { headers: { "content-type": "text/event-stream" } });
  const transport = new MmspChatTransport({ api: "http://relay.test/api/chat", fetch: fetchFake as typeof fetch });
  const stream = await transport.sendMessages({ chatId: "c", messages: [], trigger: "submit-message", messageId: undefined, abortSignal: undefined });
  const got: UIMessageChunk[] = [];
  for await (const c of stream) got.push(c);
  expect(got).toEqual([
    { type: "start", messageId: "m" },
    { type: "text-start", id: "t" },
    { type: "text-delta", id: "t", delta: "é€😀" },
    { type: "text-end", id: "t" },
    { type: "finish" },
  ]);
});
