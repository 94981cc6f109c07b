// What the README's and the docs' code blocks assume, by name: a block lists the names it uses in
// its first lines (`// given: model, messages`), and scripts/check-snippets.mjs declares those from
// here. One declaration a line (the check reads the line whole).
declare const model: string;
declare const messages: import("mmsp-streams").UniMessage[];
declare const url: string;
declare const init: RequestInit;
declare const response: Response;
declare const key: string;
declare const headers: Record<string, string>;
declare const body: string;
declare const answer: ReturnType<typeof import("mmsp-streams").fromFetch>;
declare const stream: import("mmsp-streams").UniEventStream;
declare const fragments: ReadableStream<import("mmsp-streams").UniEvent>;
declare const tools: import("mmsp-streams/providers").UniConfig["tools"];
declare const toolResults: import("mmsp-streams").UniMessage;
declare const unmounted: AbortController;
declare const stopButton: HTMLButtonElement;
declare const keyInput: HTMLInputElement;
declare const root: { render(node: unknown): void };
declare const env: { ANTHROPIC_API_KEY: string; OPENAI_API_KEY: string; GEMINI_API_KEY: string };
declare const capture: import("mmsp-streams/testing").Capture;
declare function render(what: unknown): void;
declare function show(text: string): void;
declare function showCall(name: string, args: Record<string, unknown>): void;
declare function showError(error: unknown): void;
declare const models: import("mmsp-streams/relay").RelayModels;
declare const exporter: import("@opentelemetry/sdk-trace-base").SpanExporter;
