// The relay's CPU per provider event in workerd (issue #39): one provider-backed stream through the
// relay's Durable Object (convert, check, encode, store, serve one viewer) against ProviderEventStream
// alone (every event read) in the same isolate, on each provider's corpora (bench/providers/corpora.mjs).
// The Worker is bench/runtimes/relay-provider-worker.mjs, run by Miniflare; CPU is workerd's own
// (/proc/PID/task/*/schedstat of the workerd processes, as bench/runtimes/workerd.mjs reads it) around
// each request, the viewer's body read to its end. Interleaved rounds, median per corpus.
//   node bench/relay-providers.mjs [--rounds=N --warmup=N --only=anthropic --kinds=chat]
// Prints a markdown table (bench/providers.mjs prints it after its own, unless --no-workerd).
import { options } from "./args.mjs";
import { median } from "./core/harness.mjs";
import { KINDS, PROVIDER_NAMES } from "./providers/corpora.mjs";
import { convertCpu, corpusBlobs, corpusDir, RELAY_WORKER, relayMiniflare, removeCorpusDir, timed } from "./relay-harness.mjs";
import { bundleForWorkerd, compatibilityDate } from "./runtimes/workerd-kit.mjs";

/**
 * Runs the figure: { rows: [{ provider, kind, events, convertUs, relayUs }], markdown }. `kinds`: the
 * corpora per provider (one Miniflare per kind, the four providers' corpora bound to it).
 */
export async function relayProviders({ rounds = 5, warmup = 1, providers = PROVIDER_NAMES, kinds = KINDS, log = () => {} } = {}) {
  const script = await bundleForWorkerd({ entryPoints: [RELAY_WORKER] });
  const dir = corpusDir("relay-providers-");
  const rows = [];
  try {
    for (const kind of kinds) {
      const { blobs, corpora } = corpusBlobs(dir, kind);
      const mf = relayMiniflare(script, blobs);
      try {
        const url = await mf.ready;
        const convert = (provider) => convertCpu(mf, url, provider, kind);
        const relayed = (provider) =>
          timed(async () => {
            const res = await mf.dispatchFetch(new URL("/v1/stream", url), {
              method: "POST",
              headers: { "content-type": "application/json" },
              body: JSON.stringify({ model: `bench-${provider}`, messages: [{ role: "user", content_items: [{ type: "text.done", text: "Hi" }] }] }),
            });
            const text = await res.text();
            if (!res.ok || !text.includes('"event_type":"stop"')) throw new Error(`relay ${provider}/${kind}: ${res.status} ${text.slice(-300)}`);
          });
        for (const provider of providers) {
          const events = corpora[provider].events;
          for (let i = 0; i < warmup; i++) (await convert(provider), await relayed(provider));
          const ms = { convert: [], relay: [] };
          for (let r = 0; r < rounds; r++) {
            for (const which of r % 2 ? ["relay", "convert"] : ["convert", "relay"]) ms[which].push(await (which === "convert" ? convert : relayed)(provider));
          }
          const row = { provider, kind, events, convertUs: (median(ms.convert) * 1000) / events, relayUs: (median(ms.relay) * 1000) / events };
          log(`${provider}/${kind}: ProviderEventStream ${row.convertUs.toFixed(1)} µs/event, through the relay ${row.relayUs.toFixed(1)} µs/event`);
          rows.push(row);
        }
      } finally {
        await mf.dispose();
      }
    }
  } finally {
    removeCorpusDir(dir);
  }
  const fx = (x) => x.toFixed(1);
  const md = [
    `workerd (Miniflare, compatibility_date ${compatibilityDate}): workerd's CPU per provider event (median of ${rounds} interleaved rounds after ${warmup} warm-up). "through the relay" = one stream created with \`POST /v1/stream\` for a provider-backed model and read to its end by one viewer: the provider's answer (from memory) converted, checked, encoded, stored in the stream's Durable Object (SQLite) and served; "relay's own share" = through the relay − ProviderEventStream alone (goal: ≤ the conversion's, so ≤ 2× in all).`,
    "",
    "| provider · corpus | events | ProviderEventStream alone µs/ev | through the relay µs/ev | relay's own share µs/ev | relay ÷ conversion |",
    "| --- | ---: | ---: | ---: | ---: | ---: |",
    ...rows.map((r) =>
      `| ${r.provider} · ${r.kind} | ${r.events} | ${fx(r.convertUs)} | ${fx(r.relayUs)} | ${fx(r.relayUs - r.convertUs)} | ${(r.relayUs / r.convertUs).toFixed(2)}× |`
    ),
    "",
  ].join("\n");
  return { rows, markdown: md };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const opt = options(process.argv.slice(2));
  const r = await relayProviders({
    rounds: Number(opt("rounds", 5)),
    warmup: Number(opt("warmup", 1)),
    providers: opt("only", null) ? String(opt("only")).split(",") : PROVIDER_NAMES,
    kinds: opt("kinds", null) ? String(opt("kinds")).split(",") : KINDS,
    log: (s) => console.error(`[relay-providers] ${s}`),
  });
  console.log(r.markdown);
}
