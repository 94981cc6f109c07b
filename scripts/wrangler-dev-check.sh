#!/usr/bin/env bash
# Starts `wrangler dev` on the TEST Worker (test/worker/wrangler.toml; local workerd), checks it over
# real HTTP with scripts/worker-checks.mjs (GET /selftest, streamed POST /message), stops it.
# Prints "wrangler dev: N passed, N failed". Free ports are picked, so parallel runs don't collide.
set -uo pipefail
cd "$(dirname "$0")/.."
LOG="${LOG:-.ci-out/wrangler-dev.server.log}"; mkdir -p "$(dirname "$LOG")"
export WRANGLER_SEND_METRICS=false CLOUDFLARE_CF_FETCH_ENABLED=false
free_port() { node -e 'const s=require("net").createServer().listen(0,"127.0.0.1",()=>{console.log(s.address().port);s.close()})'; }
PORT="${PORT:-$(free_port)}"; INSPECTOR_PORT="$(free_port)"
# setsid: own process group, so the whole tree (node + esbuild + workerd) can be stopped at once
setsid node_modules/.bin/wrangler dev -c test/worker/wrangler.toml --ip 127.0.0.1 --port "$PORT" \
  --inspector-port "$INSPECTOR_PORT" >"$LOG" 2>&1 &
PID=$!
cleanup() { kill -TERM -- "-$PID" 2>/dev/null; wait "$PID" 2>/dev/null; }
trap cleanup EXIT
ok=0
for _ in $(seq 1 120); do
  if curl -sf -o /dev/null "http://127.0.0.1:$PORT/"; then ok=1; break; fi
  kill -0 "$PID" 2>/dev/null || break
  sleep 0.5
done
if [ "$ok" != 1 ]; then cat "$LOG"; echo "wrangler dev did not start"; echo "wrangler dev: 0 passed, 1 failed"; exit 1; fi
echo "wrangler dev listening on 127.0.0.1:$PORT"
node scripts/worker-checks.mjs "http://127.0.0.1:$PORT" "wrangler dev"
