#!/bin/bash
# CI smoke of the load generator: builds parleyd and parley-load (release), starts parleyd on a free
# port with a fresh data directory, runs `parley-load --smoke` (2 pairs, 2 s) and stops the server.
# Fails only when messages are lost or duplicated, nothing is delivered, or something does not run;
# never on timing.
set -euo pipefail
cd "$(dirname "$0")/../.."
CONFIG=${CONFIG:-release}
SCRATCH=${SCRATCH:-.build-bench}   # SCRATCH=.build reuses the main build folder (then parleyd is not rebuilt from scratch)
swift build -c "$CONFIG" --product parleyd --scratch-path "$SCRATCH" 2>&1 | tail -1
swift build -c "$CONFIG" --package-path Benchmarks --product parley-load 2>&1 | tail -1
DATA=$(mktemp -d)
LOG=$DATA/parleyd.log
TOKEN=smoke-$$-$RANDOM
"$SCRATCH/$CONFIG/parleyd" --port 0 --data-dir "$DATA/data" --admin-token "$TOKEN" --password-cost 4 --log-level warning >"$LOG" 2>&1 &
SP=$!
trap 'kill $SP 2>/dev/null || true; wait $SP 2>/dev/null || true; rm -rf "$DATA"' EXIT
PORT=
for _ in $(seq 300); do
  PORT=$(sed -n 's/.*is listening on http:\/\/[^:]*:\([0-9]*\).*/\1/p' "$LOG" | head -1)
  [ -n "$PORT" ] && break
  kill -0 $SP 2>/dev/null || { cat "$LOG"; echo "parleyd exited"; exit 1; }
  sleep 0.1
done
[ -n "$PORT" ] || { cat "$LOG"; echo "parleyd did not say its port"; exit 1; }
timeout 120 Benchmarks/.build/$CONFIG/parley-load --smoke --url "http://127.0.0.1:$PORT" --admin-token "$TOKEN" --server-pid $SP
