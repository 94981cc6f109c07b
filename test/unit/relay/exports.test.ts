// The public API of mmsp-streams/relay, pinned (issue #45: the relay's folder is restructured
// without changing it). Three pins:
// - the runtime exports of src/relay/index.ts, by name and kind;
// - the types: every export of the entry as the TypeScript checker sees it, each interface member by
//   member with its type written out (the options, the env variables, the Relay's members…), compared
//   with test/unit/relay/__snapshots__/relay-api.txt (a change there is a change of the public API: review it);
// - what a client sees of the routes and headers: each route answers (no "No route"), a preflight
//   allows and exposes the same headers, and the 404 names the same routes.
import { readFileSync, writeFileSync } from "node:fs";
import ts from "typescript";
import { expect, test } from "vitest";
import * as relayModule from "../../../src/relay/index.ts";
import { createRelay, type RelayEnv } from "../../../src/relay/index.ts";

const ENTRY = decodeURIComponent(new URL("../../../src/relay/index.ts", import.meta.url).pathname);

/**
 * `value` as the file `name` of test/unit/relay/__snapshots__/ holds it (reviewed by hand: regenerate with
 * UPDATE_RELAY_API=1 only for a change of the public API that is meant).
 */
function expectPinned(name: string, value: string): void {
  const file = new URL(`./__snapshots__/${name}`, import.meta.url);
  const env = (globalThis as { process?: { env: Record<string, string | undefined> } }).process?.env ?? {};
  if (env.UPDATE_RELAY_API === "1") writeFileSync(file, value);
  expect(value).toBe(readFileSync(file, "utf8"));
}

test("the runtime exports of mmsp-streams/relay: their names and kinds", () => {
  const kinds = Object.fromEntries(
    Object.keys(relayModule).sort().map((name) => {
      const value = (relayModule as Record<string, unknown>)[name];
      const kind = typeof value === "function" && /^class\b/.test(Function.prototype.toString.call(value)) ? "class" : typeof value;
      return [name, kind];
    }),
  );
  expect(kinds).toEqual({
    RelayConfigError: "class",
    RelayQuotaObject: "class",
    RelayStreamObject: "class",
    addressKey: "function",
    createRelay: "function",
  });
});

/** Every export of the entry, as the checker sees it, one line a member. */
function describeApi(): string {
  const program = ts.createProgram([ENTRY], {
    target: ts.ScriptTarget.ES2022,
    module: ts.ModuleKind.ESNext,
    moduleResolution: ts.ModuleResolutionKind.Bundler,
    lib: ["lib.es2022.d.ts", "lib.dom.d.ts", "lib.dom.iterable.d.ts"],
    strict: true,
    types: [],
    allowImportingTsExtensions: true,
    noEmit: true,
    skipLibCheck: true,
  });
  const checker = program.getTypeChecker();
  const source = program.getSourceFile(ENTRY)!;
  const flags = ts.TypeFormatFlags.NoTruncation | ts.TypeFormatFlags.WriteArrowStyleSignature;
  const text = (type: ts.Type): string => checker.typeToString(type, undefined, flags);
  const lines: string[] = [];
  const exports = checker.getExportsOfModule(checker.getSymbolAtLocation(source)!).sort((a, b) => a.name.localeCompare(b.name));
  for (const exported of exports) {
    const symbol = exported.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(exported) : exported;
    const decl = symbol.declarations?.[0];
    const kinds = [
      symbol.flags & ts.SymbolFlags.Class ? "class" : "",
      symbol.flags & ts.SymbolFlags.Interface ? "interface" : "",
      symbol.flags & ts.SymbolFlags.TypeAlias ? "type" : "",
      symbol.flags & ts.SymbolFlags.Function ? "function" : "",
      symbol.flags & ts.SymbolFlags.Variable ? "const" : "",
    ].filter(Boolean).join("+");
    const params = decl && (ts.isInterfaceDeclaration(decl) || ts.isClassDeclaration(decl) || ts.isTypeAliasDeclaration(decl))
      ? (decl.typeParameters ?? []).map((p) => p.getText()).join(", ")
      : "";
    lines.push(`${kinds} ${exported.name}${params ? `<${params}>` : ""}`);
    if (symbol.flags & (ts.SymbolFlags.Function | ts.SymbolFlags.Variable)) {
      lines.push(`  : ${text(checker.getTypeOfSymbolAtLocation(symbol, decl!))}`);
    }
    if (symbol.flags & ts.SymbolFlags.Class) {
      const ctor = checker.getTypeOfSymbolAtLocation(symbol, decl!);
      for (const sig of ctor.getConstructSignatures()) lines.push(`  new ${checker.signatureToString(sig, undefined, flags)}`);
      for (const prop of checker.getPropertiesOfType(ctor).filter((p) => p.name !== "prototype")) {
        lines.push(`  static ${prop.name}: ${text(checker.getTypeOfSymbolAtLocation(prop, decl!))}`);
      }
    }
    if (symbol.flags & (ts.SymbolFlags.Interface | ts.SymbolFlags.Class | ts.SymbolFlags.TypeAlias)) {
      const type = checker.getDeclaredTypeOfSymbol(symbol);
      if (symbol.flags & ts.SymbolFlags.TypeAlias) {
        lines.push(`  = ${checker.typeToString(type, undefined, flags | ts.TypeFormatFlags.InTypeAlias)}`);
      }
      const members = type.isUnion() ? [] : checker.getPropertiesOfType(type);
      for (const prop of members.sort((a, b) => a.name.localeCompare(b.name))) {
        const optional = prop.flags & ts.SymbolFlags.Optional ? "?" : "";
        const where = prop.valueDeclaration ?? prop.declarations?.[0] ?? decl!;
        // (a class's private members are its own: not the API; protected ones are, for a subclass)
        const modifiers = ts.getCombinedModifierFlags(where as ts.Declaration);
        if (modifiers & ts.ModifierFlags.Private) continue;
        const access = modifiers & ts.ModifierFlags.Protected ? "protected " : "";
        // (a well-known symbol's name carries the checker's count of symbols so far, which any new type shifts)
        const name = prop.name.replace(/^__@(\w+)@\d+$/, "[Symbol.$1]");
        lines.push(`  ${access}.${name}${optional}: ${text(checker.getTypeOfSymbolAtLocation(prop, where))}`);
      }
      for (const sig of type.getCallSignatures()) lines.push(`  (call) ${checker.signatureToString(sig, undefined, flags)}`);
    }
  }
  return lines.join("\n") + "\n";
}

test("the types of mmsp-streams/relay: each export, each member of its interfaces, as the snapshot says", () => {
  const api = describeApi();
  expectPinned("relay-api.txt", api);
  // what it holds of the env: the variables and bindings the relay reads, by name
  const members = api.split("\ninterface RelayEnv\n")[1]!.split("\n");
  const envKeys = members.slice(0, members.findIndex((l) => !l.startsWith("  ."))).map((l) => l.slice(3).split(/[?:]/)[0]);
  expect(envKeys).toEqual(ENV_KEYS);
});

/** The variables and bindings the relay reads (RelayEnv), by name. */
const ENV_KEYS = [
  "ABANDON_S",
  "ADMIN_KEY",
  "ALLOW_ANONYMOUS",
  "ANONYMOUS_PER_MINUTE",
  "BIND_SECRET",
  "CORS_ORIGINS",
  "DEFAULT_MAX_TOKENS",
  "FIRST_EVENT_S",
  "MAX_BODY_BYTES",
  "MAX_CLIENTS",
  "MAX_EVENT_BYTES",
  "MAX_EVENTS",
  "MAX_INLINE_BYTES",
  "MAX_STREAM_BYTES",
  "MAX_STREAM_S",
  "MMSP_UPSTREAM",
  "QUOTAS",
  "RELAY_KEY",
  "RELAY_KEYS",
  "RELAY_QUOTAS",
  "RELAY_SEAL_KEY",
  "RESPONSES_TTL_S",
  "STALL_S",
  "STREAM_TTL_S",
  "STREAMS",
  "TRUSTED_ADDRESS_HEADER",
];

const ORIGIN = "https://relay.test";

test("the routes a client sees: each answers as a route (not the 404 of no route), and the 404 names them all", async () => {
  const relay = createRelay<RelayEnv>({
    upstream: () => new Response("data: [DONE]\n\n", { headers: { "content-type": "text/event-stream" } }),
    models: {},
  });
  const noRoute = async (method: string, path: string): Promise<boolean> => {
    const answer = await relay.fetch(new Request(`${ORIGIN}${path}`, { method, ...(method === "POST" ? { body: "{}" } : {}) }), {});
    return answer.status === 404 && (await answer.text()).includes("No route for");
  };
  const id = "0123456789abcdef0123456789abcdef";
  const routes: [string, string][] = [
    ["POST", "/v1/stream"],
    ["GET", `/v1/streams/${id}`],
    ["DELETE", `/v1/streams/${id}`],
    ["POST", "/v1/responses"],
    ["GET", `/v1/responses/${id}`],
    ["POST", `/v1/responses/${id}/cancel`],
    ["POST", "/v1/chat/completions"],
    ["POST", "/v1beta/models/m:streamGenerateContent?alt=sse"],
    ["POST", "/v1beta/models/m:generateContent"],
    ["POST", "/v1beta/models/m:countTokens"],
    ["POST", "/v1/messages"],
    ["POST", "/v1/messages/count_tokens"],
    ["HEAD", "/"],
    ["POST", "/api/chat"],
    ["GET", "/api/chat/chat-1/stream"],
    ["DELETE", "/api/chat/chat-1/stream"],
    ["GET", "/v1/models"],
    ["GET", "/v1/usage"],
  ];
  for (const [method, path] of routes) expect([method, path, await noRoute(method, path)]).toEqual([method, path, false]);
  expect(await noRoute("GET", "/v1/elsewhere")).toBe(true);
  const answer = await relay.fetch(new Request(`${ORIGIN}/v1/elsewhere`), {});
  expect((await answer.json()).error.message).toBe(
    "No route for GET /v1/elsewhere: POST /v1/stream, GET or DELETE /v1/streams/<id>, POST /v1/responses, " +
      "GET /v1/responses/<id>, POST /v1/responses/<id>/cancel, POST /v1/chat/completions, POST /v1/messages, POST /v1/messages/count_tokens, " +
      "GET or DELETE /v1/messages/<id>, HEAD /, POST /v1beta/models/<model>:streamGenerateContent?alt=sse, " +
      "POST /v1beta/models/<model>:generateContent, POST /v1beta/models/<model>:countTokens, POST /api/chat, " +
      "GET or DELETE /api/chat/<chatId>/stream, GET /v1/models, GET /v1/usage.",
  );
});

test("the headers a browser client sees: a preflight's allowed methods and headers, an answer's exposed headers, nosniff", async () => {
  const relay = createRelay<RelayEnv>({
    upstream: () => new Response("data: [DONE]\n\n", { headers: { "content-type": "text/event-stream" } }),
  });
  const headers = { origin: "https://page.test", "access-control-request-method": "POST" };
  const pre = await relay.fetch(new Request(`${ORIGIN}/v1/stream`, { method: "OPTIONS", headers }), {});
  const pinned = (h: Headers) =>
    Object.fromEntries([...h].filter(([k]) => k.startsWith("access-control-") || k === "x-content-type-options"));
  const after = await relay.fetch(new Request(`${ORIGIN}/v1/elsewhere`, { headers: { origin: "https://page.test" } }), {});
  expectPinned("relay-headers.json", JSON.stringify({ preflight: pinned(pre.headers), answer: pinned(after.headers) }, null, 2) + "\n");
});
