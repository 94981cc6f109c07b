#!/usr/bin/env bash
# `npm test`: every test suite. Installs what the tests need beyond npm packages (Debian's chromium,
# as root, when missing), builds the library with tsup and typechecks, checks that the library entry needs
# no Node built-ins, then runs the same shared cases (test/cases/) in Node (vitest), workerd
# (vitest-pool-workers + Worker integration tests, Miniflare API, wrangler dev), Deno, Bun and
# Debian's Chromium (vitest browser mode + plain playwright-core), and runs every example.
# Each step prints its runner's own count; the run ends with one "N passed, N failed" line and
# exits non-zero if anything failed (a step that crashed or ran no test counts as a failure).
set -uo pipefail
cd "$(dirname "$0")/.."

export CI=true NO_COLOR=1   # (not FORCE_COLOR=0: deno reads any FORCE_COLOR as "force colours on")
export DENO_NO_UPDATE_CHECK=1            # deno: no background version check
export WRANGLER_SEND_METRICS=false       # wrangler: no telemetry
export CLOUDFLARE_CF_FETCH_ENABLED=false # miniflare/wrangler: don't fetch Request.cf from the internet
export DEBIAN_FRONTEND=noninteractive
export DENO_DIR="$PWD/.cache/deno"
mkdir -p .ci-out
t_start=$SECONDS
stamp() { echo "::: [$((SECONDS - t_start))s] $*"; }
# a setup step failed: nothing can be tested; still end with the summary line
abort() { echo "$1"; echo "0 passed, 1 failed"; exit 1; }

# --- 1. system packages: Debian's chromium (no browser download works here) -----------------
if ! command -v chromium >/dev/null 2>&1; then
  stamp "apt-get install chromium"
  apt-get update -q >/dev/null || abort "apt-get update failed"
  apt-get install -y -q --no-install-recommends chromium >.ci-out/apt.log 2>&1 \
    || { tail -30 .ci-out/apt.log; abort "apt-get install chromium failed"; }
fi
export CHROMIUM_PATH="$(command -v chromium)"

# --- 3. build (the tests import the built dist/) -----------------------------------------------
stamp "build"
npm run -s build || abort "build failed"

# --- 4. typecheck and tests in every runtime --------------------------------------------------
total_pass=0; total_fail=0; summary=(); failures=(); retried=()
# run_step NAME KIND CMD...   KIND tells how to read the runner's own summary: vitest|deno|bun|tap|plain,
# or "check" for a command without one (its exit status counts as 1 passed or 1 failed)
run_step() {
  local name=$1 kind=$2; shift 2
  local log=".ci-out/$name.log" rc p f clean
  stamp "test: $name"
  timeout 600 "$@" 2>&1 | tee "$log"; rc=${PIPESTATUS[0]}
  clean=$(sed -e 's/\x1b\[[0-9;]*m//g' "$log")
  case $kind in
    vitest) line=$(grep -E '^ *Tests +' <<<"$clean" | tail -1)
            p=$(grep -oE '[0-9]+ passed' <<<"$line" | grep -oE '[0-9]+'); f=$(grep -oE '[0-9]+ failed' <<<"$line" | grep -oE '[0-9]+') ;;
    deno)   line=$(grep -E '[0-9]+ passed \| [0-9]+ failed' <<<"$clean" | tail -1)
            p=$(sed -E 's/.* ([0-9]+) passed.*/\1/' <<<"$line"); f=$(sed -E 's/.* ([0-9]+) failed.*/\1/' <<<"$line") ;;
    bun)    p=$(grep -E '^ *[0-9]+ pass$' <<<"$clean" | tail -1 | grep -oE '[0-9]+'); f=$(grep -E '^ *[0-9]+ fail$' <<<"$clean" | tail -1 | grep -oE '[0-9]+') ;;
    check)  if [ "$rc" = 0 ]; then p=1; else f=1; fi ;;
    tap)    p=$(grep -E '^# pass [0-9]+' <<<"$clean" | tail -1 | grep -oE '[0-9]+'); f=$(grep -E '^# fail [0-9]+' <<<"$clean" | tail -1 | grep -oE '[0-9]+') ;;
    plain)  line=$(grep -E '[0-9]+ passed, [0-9]+ failed' <<<"$clean" | tail -1)
            # (the count may start the line: "3 passed, 0 failed")
            p=$(sed -E 's/^(.*[^0-9])?([0-9]+) passed, ([0-9]+) failed.*/\2/' <<<"$line"); f=$(sed -E 's/^(.*[^0-9])?([0-9]+) passed, ([0-9]+) failed.*/\3/' <<<"$line") ;;
  esac
  p=${p:-0}; f=${f:-0}
  if [ "$rc" != 0 ] && [ "$f" = 0 ]; then f=1; fi   # crashed, timed out, or printed no summary
  if [ "$p" = 0 ] && [ "$f" = 0 ]; then f=1; fi     # ran no test: count as a failure
  echo "::: $name: $p passed, $f failed (exit $rc)"
  summary+=("$(printf '%-22s %5s passed, %s failed' "$name:" "$p" "$f")")
  # what failed, by name, for the run's last lines (CI keeps only the end of a log): vitest's FAIL lines,
  # deno's `... FAILED`, bun's `(fail)` and TAP's `not ok`, or the step's last lines when its runner names none
  if [ "$f" != 0 ]; then
    local named
    named=$(grep -E '^ *(FAIL |✗|✖|\(fail\)|not ok )| \.\.\. FAILED' <<<"$clean" | sort -u | head -12)
    failures+=("$name:" "$(sed 's/^/  /' <<<"${named:-$(tail -3 <<<"$clean")}")")
  fi
  # a test that passed only on its retry (relay-pool's, scripts/vitest-retried.mjs): named at the end too
  while IFS= read -r line; do retried+=("$line"); done < <(grep -E '^RETRIED ' <<<"$clean")
  total_pass=$((total_pass + p)); total_fail=$((total_fail + f))
}

run_step lint             check  npm run -s lint                        # deno lint + deno fmt --check over the shipped code (src/, cli/, worker/)
run_step typecheck        check  npx tsc -p .                           # library + shared cases
run_step typecheck-worker check  npx tsc -p test/worker                 # examples/worker.ts, test Worker, its tests
run_step typecheck-relay  check  bash -c 'node worker/build.mjs && npx tsc -p worker'  # relay Worker + demo page script
run_step typecheck-relay-pool check bash -c 'node worker/build.mjs && npx tsc -p test/relay-pool'  # the relay-pool tests (vitest-pool-workers) with the relay Worker
run_step snippets         plain  node scripts/check-snippets.mjs     # every ts/tsx block of README.md and docs/ type-checked against dist/ as a user compiles it (strict; bundler and node16; Deno blocks by deno check)
run_step web-only         plain  node scripts/check-web-only.mjs        # dist/index.js bundles without Node built-ins
run_step web-only-ai-sdk  plain  node scripts/check-web-only.mjs dist/ai-sdk/index.js  # the mmsp-streams/ai-sdk subpath too
run_step web-only-relay   plain  node scripts/check-web-only.mjs dist/relay/index.js   # and mmsp-streams/relay (no node:*, no cloudflare:workers needed)
run_step import-circles   plain  node scripts/import-circles.mjs          # no import circle in src/relay/ (type-only included), none of value imports in src/
run_step web-only-testing plain  node scripts/check-web-only.mjs dist/testing/index.js # and mmsp-streams/testing (the test kit runs in every runtime)
run_step web-only-providers plain node scripts/check-web-only.mjs dist/providers/index.js  # and mmsp-streams/providers (web fetch and streams only)
run_step typecheck-ai-sdk check  npx tsc -p test/ai-sdk                 # the adapter's declared types vs the real `ai` package's
run_step ai-sdk           vitest npx vitest run --project ai-sdk        # mmsp-streams/ai-sdk against the real AI SDK (Node)
run_step node             vitest npx vitest run --project node          # Node 20
run_step unit             vitest npx vitest run --project unit          # pure modules (diagnosis, option checks), from src/
run_step workers          vitest npx vitest run --project workers       # workerd: shared cases + test/workers/*.test.ts
run_step relay-pool       vitest npx vitest run --project relay-pool --retry=1 --reporter=default --reporter=./scripts/vitest-retried.mjs  # relay Worker + STREAMS Durable Object in vitest-pool-workers: drops, resumes, 404/400/403, expiry (one retry; a test that passed only on it is named: RETRIED)
run_step relay-bounds     plain  node scripts/relay-bounds.mjs          # figures: CPU / RSS of workerd for refused bodies (7 MiB of [], nested [, 50 MiB ×4), a 6 MiB image chat, 32 non-reading viewers, a 200 MiB stream, a hostile provider (held tool-call fragments, an unterminated event: bytes read from it)
run_step browser          vitest npx vitest run --project browser       # Chromium, vitest browser mode
run_step miniflare        plain  node scripts/miniflare-run.mjs         # workerd via Miniflare's API: test Worker over dispatchFetch
run_step wrangler-dev     plain  bash scripts/wrangler-dev-check.sh     # workerd via `wrangler dev -c test/worker/wrangler.toml`, real HTTP
run_step deno             deno   npx deno test test/deno_test.ts
run_step bun              bun    npx bun test --timeout 30000 ./test/all.test.ts
run_step chromium         plain  node scripts/browser-run.mjs           # Chromium via playwright-core, no test runner
run_step sse-differential plain  node scripts/sse-differential.mjs      # SseDecoderStream vs undici's, Deno's and Chromium's EventSource
run_step examples         plain  node scripts/examples-run.mjs          # examples/: node, deno, browser page, worker
run_step react-example    plain  node scripts/react-example-check.mjs   # examples/react/: React 19 in Chromium from subscribe/snapshot, every sample, fromFetch resumed; memo'd done items render once
run_step testing-example  vitest npx vitest run --project examples    # the README's test with the kit (docs/guide/testing.md): examples/testing.test.ts (mmsp-streams/testing) in vitest
run_step testing-example-bun bun npx bun test --timeout 30000 ./examples/testing.test.ts  # the same file under bun test
run_step testing-example-deno deno npx deno test --allow-read examples/testing_test.ts    # the same checks in Deno's test runner
run_step relay            plain  node test/relay/run.mjs                # relay Worker in workerd (Miniflare) vs the kit's fake MMSP server; resume
run_step relay-ui-chat    plain  node test/relay/ui-chat.mjs               # the AI SDK guide's ten-line useChat Worker in workerd (Miniflare, its Durable Object): DefaultChatTransport + MmspChatTransport, tool call, resume, Stop reaching the fake provider, another principal; Chromium: ai's chat resumed after a reload, stopped; useChat (React) + DefaultChatTransport: tool call, resumed after a reload, another principal, stop() vs DELETE
run_step relay-quotas     plain  node test/relay/quotas.mjs             # two relay Worker instances sharing the QUOTAS namespace: a limit holds, the ledger
run_step relay-process-kill plain node test/relay/process-kill.mjs     # issue #48: workerd killed (SIGKILL) mid-stream, started again on the same persisted storage: continued, ended typed, charged once, released
run_step relay-faults     plain  node scripts/load.mjs --faults --tiny  # issue #48: the load run's fault mode, small: 6 streams, one object reset, one workerd kill; 0 lost, 0 duplicated, charged once, released
run_step resume-wrangler  plain  node scripts/load.mjs --tiny           # resumable streams through `wrangler dev`: drops, resumes, 0 lost/duplicated
run_step resume-wrangler-provider plain node scripts/load.mjs --tiny --provider  # the same against a provider-backed model (fakeProvider("anthropic"))
run_step demo-page        plain  node scripts/demo-page-check.mjs       # demo page in Chromium against wrangler dev; .ci-out/demo-page.png
run_step ai-sdk-chat      plain  node scripts/ai-sdk-chat-check.mjs     # /api/chat under wrangler dev: DefaultChatTransport + examples/ai-sdk-chat.html in Chromium
run_step cli              tap    node --test test/cli/                  # the CLI: samples, inspect, live server, convert
run_step core-lines       plain  node scripts/core-lines.mjs            # issue #20: the reader core's lines beside the goal (4,800); known miss printed, growth past the ceiling fails
run_step bundle-size      plain  node scripts/check-bundle-size.mjs     # per-import budgets (esbuild, browser, min+gzip); known misses listed, not failing
run_step jsr-dry-run      check  npx deno publish --dry-run --allow-dirty   # JSR: src/ with no slow types (explicit types on every export)
run_step doc-lint         plain  node scripts/doc-lint.mjs              # TSDoc on every exported symbol of every entry (deno doc --lint)
# the @example blocks of the entry modules, run by Deno (--no-check: Deno adds an import of every export of the
# module to each block, which tsconfig's noUnusedLocals would flag; the blocks import from "mmsp-streams" themselves)
run_step doc-examples     deno   npx deno test --doc --no-check --allow-read src/index.ts src/sse.ts src/ndjson.ts src/encode.ts src/partial-json.ts src/errors.ts src/schema.ts src/uni-event-stream.ts src/from-response.ts src/assemble/message-assembler-stream.ts src/encode/sse-encoder.ts src/testing/index.ts src/testing/replay.ts src/testing/record.ts src/testing/fake-mmsp.ts src/testing/fake-provider.ts src/providers/index.ts src/providers/provider-event-stream.ts src/providers/openai-chat/index.ts src/providers/anthropic/index.ts src/providers/openai-responses/index.ts src/providers/gemini/index.ts
run_step docs             plain  node scripts/docs-check.mjs           # issue #40: the docs site built (API reference from the TSDoc), every page in Chromium: no console error, links and anchors resolve, search; .ci-out/docs-home-*.png
run_step consumers        plain  node scripts/consumers.mjs             # npm pack → fresh project: Node ESM/CJS, tsc node16/bundler, Deno npm/JSR, Bun, browser bundle; publint, attw
run_step relay-consumer   plain  node scripts/relay-consumer.mjs        # npm pack → fresh project: the README's ten-line relay Worker under wrangler dev (and its provider form); served, resumed after a cut, stopped by DELETE (upstream aborted < 1 s)

stamp "done"
printf '  %s\n' "${summary[@]}"
if [ "${#failures[@]}" != 0 ]; then echo "what failed:"; printf '  %s\n' "${failures[@]}"; fi
if [ "${#retried[@]}" != 0 ]; then echo "passed only on a retry (flaky: look into it):"; printf '  %s\n' "${retried[@]}"; fi
echo "$total_pass passed, $total_fail failed"
[ "$total_fail" = 0 ]
