// What the CPU profilers of the benches share (bench/profile-runtimes.mjs, bench/profile-relay.mjs): a
// DevTools-protocol session on a V8 inspector (workerd's, through Miniflare's inspectorPort) and a
// .cpuprofile read into self time per source file and per function, a bundle's lines mapped back to
// the modules esbuild names in its `// path` comments. One copy, so both read a profile the same way.

/** A DevTools session on the inspector at `port` (its first target): { send(method, params), close() }. Needs a global WebSocket. */
export async function inspectorSession(port) {
  const targets = await (await fetch(`http://127.0.0.1:${port}/json`)).json();
  const ws = new WebSocket(targets[0].webSocketDebuggerUrl);
  await new Promise((r, j) => {
    ws.onopen = r;
    ws.onerror = j;
  });
  let seq = 0;
  const pending = new Map();
  ws.onmessage = (m) => {
    const msg = JSON.parse(m.data);
    if (msg.id && pending.has(msg.id)) pending.get(msg.id)(msg.result);
  };
  const send = (method, params = {}) =>
    new Promise((r) => {
      const i = ++seq;
      pending.set(i, r);
      ws.send(JSON.stringify({ id: i, method, params }));
    });
  return { send, close: () => ws.close() };
}

/** Runs `f` under the session's sampling profiler (200 µs): the profile. */
export async function profiled(session, f) {
  await session.send("Profiler.enable");
  await session.send("Profiler.setSamplingInterval", { interval: 200 });
  await session.send("Profiler.start");
  await f();
  const { profile } = await session.send("Profiler.stop");
  return profile;
}

const short = (url) =>
  url.replace(/^bench\/runtimes\/\.\.\/\.\.\//, "").replace(
    /^.*\/dist\//,
    "dist/",
  ).replace(/^.*\/node_modules\//, "node_modules/").replace(
    /^.*\/bench\//,
    "bench/",
  )
    .replace(/^https?:\/\/127\.0\.0\.1:\d+\//, "page:");

/**
 * Self time (µs) of `profile` per file and per function ("name\tfile:line"): { byFile, byFn, total, weights
 * (each sample's µs) }.
 * With `bundleText`, frames in the bundle are named by the module that line came from.
 */
export function selfTimes(profile, bundleText = null) {
  const starts = [];
  if (bundleText) {
    bundleText.split("\n").forEach((l, i) => {
      const m = /^\/\/ ((?:\.\.\/)*(?:dist|bench|node_modules)\/\S+\.m?js)$/
        .exec(l);
      if (m) starts.push([i, m[1].replace(/^(\.\.\/)+/, "")]);
    });
  }
  const moduleAt = (line) => {
    let f = null;
    for (const [i, path] of starts) if (i <= line) f = path;
    return f;
  };
  for (const node of profile.nodes) {
    const cf = node.callFrame;
    if (starts.length && cf.url && /(p\.js|script-\d+)$/.test(cf.url)) {
      cf.url = moduleAt(cf.lineNumber) ?? cf.url;
    }
  }
  // Sample i stands for the time until sample i + 1 (as DevTools reads it), but no more than 4 sampling
  // intervals (the median gap): a longer gap is the isolate waiting (workerd takes no samples while its
  // thread is out of V8), and counted to the first frame after it, it made a request's first function look
  // slow (1.2 ms per call of the relay's clientAddressOf). What is cut is counted as idle.
  const self = new Map();
  const d = profile.timeDeltas;
  const gaps = d.slice(1).sort((a, b) => a - b);
  const cap = 4 * (gaps[gaps.length >> 1] ?? 0);
  const idleNode = profile.nodes.find((n) => n.callFrame.functionName === "(idle)")?.id;
  const weights = profile.samples.map((node, i) => {
    const gap = d[i + 1] ?? cap / 4;
    const w = cap ? Math.min(gap, cap) : gap;
    self.set(node, (self.get(node) ?? 0) + w);
    if (gap > w && idleNode !== undefined) self.set(idleNode, (self.get(idleNode) ?? 0) + gap - w);
    return w;
  });
  const total = [...self.values()].reduce((a, b) => a + b, 0);
  const byFile = new Map();
  const byFn = new Map();
  for (const node of profile.nodes) {
    const t = self.get(node.id) ?? 0;
    if (!t) continue;
    const { functionName, url, lineNumber } = node.callFrame;
    const f = url ? short(url) : `(${functionName || "native"})`;
    byFile.set(f, (byFile.get(f) ?? 0) + t);
    const key = `${functionName || "(anonymous)"}\t${url ? `${short(url)}:${lineNumber + 1}` : ""}`;
    byFn.set(key, (byFn.get(key) ?? 0) + t);
  }
  return { byFile, byFn, total, weights };
}
