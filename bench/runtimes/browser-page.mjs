// The page script of the Chromium run (bundled by esbuild): fetches the corpora from the local
// server that bench/runtimes/chromium.mjs started and runs the core. No CPU clock in a page: wall time.
import { bench } from "../core/entry.mjs";

globalThis.BENCH = {
  run: (plan) =>
    bench({
      plan,
      getCorpus: async (name, format) => {
        const meta = plan.corpora[`${name}/${format}`];
        const bytes = new Uint8Array(await (await fetch(`/corpus/${name}.${format}`)).arrayBuffer());
        return { name, format, bytes, ...meta };
      },
      gc: typeof globalThis.gc === "function" ? () => globalThis.gc() : null,
      log: (s) => console.log(`[chromium] ${s}`),
    }),
};
