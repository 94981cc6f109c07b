// The runner of the process tests that are not vitest's (test/relay/*.mjs, scripts/ai-sdk-chat-check.mjs,
// scripts/demo-page-check.mjs): tests named and run in order, each bounded in time, printed "✓ [label] name
// (ms)" or "✗ [label] name" with the start of its stack; then the test's own cleanup, and "<label>: N passed,
// N failed (ms)" — exiting 0 only when some passed and none failed (after stdout has drained: an exit drops a
// pipe's queued writes). One copy, so every such step reads and fails the same way.

/**
 * A list of tests for `label` (each printed "[tag] name"; the tag is the label unless given): `test(name, fn,
 * ms?)` adds one (`ms`: its own bound, for a test that waits on a bound of its own), `run({ timeoutMs, t0,
 * cleanup, filter })` runs them all (only names holding `filter`, when given) and exits.
 */
export function namedTests(label, tag = label) {
  const tests = [];
  return {
    test: (name, fn, ms) => tests.push({ name, fn, ms }),
    async run({ timeoutMs, t0, cleanup, filter }) {
      let passed = 0;
      let failed = 0;
      try {
        for (const { name, fn, ms = timeoutMs } of tests) {
          if (filter && !name.includes(filter)) continue;
          const t = performance.now();
          let timer;
          const late = new Promise((_, reject) => (timer = setTimeout(() => reject(new Error(`timed out after ${ms / 1000} s`)), ms)));
          try {
            await Promise.race([fn(), late]);
            passed++;
            console.log(`✓ [${tag}] ${name} (${Math.round(performance.now() - t)} ms)`);
          } catch (e) {
            failed++;
            console.log(`✗ [${tag}] ${name}\n  ${(e?.stack ?? String(e)).split("\n").slice(0, 6).join("\n  ")}`);
          } finally {
            clearTimeout(timer);
          }
        }
      } finally {
        await cleanup();
      }
      console.log(`${label}: ${passed} passed, ${failed} failed (${Math.round(performance.now() - t0)} ms)`);
      process.stdout.write("", () => process.exit(failed === 0 && passed > 0 ? 0 : 1));
    },
  };
}
