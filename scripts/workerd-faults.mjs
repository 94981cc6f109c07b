// Faults for the relay Worker in workerd (issue #48, SPEC §10 "A stream outlives its object"), used by
// test/relay/process-kill.mjs and `npm run load -- --faults` (scripts/load.mjs):
// - the Worker (worker/, bundled as wrangler does) in Miniflare with its Durable Objects' storage
//   persisted to a directory, so that a new workerd process started on the same directory finds what
//   the dead one stored (as a redeployed or restarted runtime does);
// - a process kill: Miniflare's workerd is a child process of this one; `killWorkerd` finds its pid
//   in /proc and sends it SIGKILL (no shutdown, no flush: whatever it had not written is gone), and
//   `restart` starts a new Miniflare on the same storage;
// - one object reset (`state.abort()`, as a deploy or an eviction does to one object): a wrapper
//   module around the bundled Worker (test-only, never deployed) adds `POST /__faults/reset?id=<stream
//   id>`, which makes that stream's object cut its storage (what a reset does to the old instance's
//   storage in production, which Miniflare's keeps open: its writes would race the next instance's)
//   and call `ctx.abort()` — the same reset test/relay-pool/outlives.test.ts makes with
//   runInDurableObject.
import { readdir, readFile } from "node:fs/promises";
import { Miniflare } from "miniflare";
import { bundleWorker } from "../worker/build.mjs";

// The wrapper: the relay's own exports, its StreamObject with a reset route, its fetch with the route to it.
const WRAPPER = `
import * as relay from "./relay.js";
export * from "./relay.js";
export class StreamObject extends relay.StreamObject {
  async fetch(request) {
    if (request.headers.get("x-faults") !== "reset") return super.fetch(request);
    const dead = { exec() { throw new Error("Durable Object reset"); } };
    const store = this.ctx?.store;
    if (store) store.sql = store.log.sql = dead;
    this.live?.upstream?.abort(new Error("Durable Object reset")); // (its I/O ends with it)
    this.faultsState.abort("a fault of the load run");
    return new Response("reset");
  }
  constructor(state, env) {
    super(state, env);
    this.faultsState = state;
  }
}
export default {
  async fetch(request, env, ctx) {
    const url = new URL(request.url);
    if (url.pathname !== "/__faults/reset") return relay.default.fetch(request, env, ctx);
    const id = url.searchParams.get("id") ?? "";
    const stub = env.STREAMS.get(env.STREAMS.idFromName(id));
    const answer = await stub.fetch("https://stream/__faults", { headers: { "x-faults": "reset" } }).then((r) => r.status, (e) => String(e));
    return new Response(String(answer));
  },
};
`;

/**
 * A relay Worker in Miniflare on the persisted storage `dir`, with `bindings`, on 127.0.0.1:`port`
 * (0: any; a restart passes the port of the process it replaces, so clients resume where they were);
 * resolves to `{ url, port, mf, pid }` (the base URL, the Miniflare, its workerd's pid).
 */
export async function startRelay(dir, bindings, port = 0) {
  const { script, compatibilityDate, compatibilityFlags } = await bundleWorker();
  const mf = new Miniflare({
    modules: [
      { type: "ESModule", path: "faults.js", contents: WRAPPER },
      { type: "ESModule", path: "relay.js", contents: script },
    ],
    compatibilityDate,
    compatibilityFlags,
    bindings,
    durableObjects: { STREAMS: { className: "StreamObject", useSQLite: true }, QUOTAS: { className: "QuotaObject", useSQLite: true } },
    durableObjectsPersist: dir,
    host: "127.0.0.1",
    port,
  });
  const url = await mf.ready;
  const pids = await workerdPids();
  if (pids.length !== 1) throw new Error(`expected one workerd child of this process, found ${pids.length}`);
  return { url, port: Number(url.port), mf, pid: pids[0] };
}

/** The pids of the workerd processes started by this process (children, or their children). */
export async function workerdPids() {
  const parents = new Map();
  const names = new Map();
  for (const pid of await readdir("/proc").catch(() => [])) {
    if (!/^\d+$/.test(pid)) continue;
    try {
      const stat = await readFile(`/proc/${pid}/stat`, "utf8");
      parents.set(Number(pid), Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]));
      names.set(Number(pid), await readFile(`/proc/${pid}/cmdline`, "utf8"));
    } catch {}
  }
  const mine = (pid) => {
    for (let p = parents.get(pid), depth = 0; p !== undefined && depth < 3; p = parents.get(p), depth++) if (p === process.pid) return true;
    return false;
  };
  return [...names].filter(([pid, cmd]) => cmd.includes("workerd") && mine(pid)).map(([pid]) => pid);
}

/** SIGKILL to `relay`'s workerd (the whole runtime dies at once); resolves once it is gone, then disposes its Miniflare. */
export async function killWorkerd(relay) {
  process.kill(relay.pid, "SIGKILL");
  for (let i = 0; i < 600 && (await workerdPids()).includes(relay.pid); i++) await new Promise((r) => setTimeout(r, 50));
  await relay.mf.dispose().catch(() => {});
}

/** Resets one stream's object (`ctx.abort()` after its storage is cut): the answer of the reset route. */
export async function resetObject(relay, id) {
  const res = await fetch(new URL(`/__faults/reset?id=${encodeURIComponent(id)}`, relay.url), { method: "POST" });
  return res.text();
}
