#!/bin/bash
# Reconnect storm and a large idle fleet against a release parleyd pinned to CPU0 (generator on CPU1).
#   scripts/bench/storm.sh        # K=5000 RUNS=3 IDLE=15000 (fd limit here: 20,000 per process)
set -euo pipefail
cd "$(dirname "$0")/../.."
K=${K:-5000}; RUNS=${RUNS:-3}; IDLE=${IDLE:-15000}; OUT=${OUT:-/tmp/parley-storm}; mkdir -p "$OUT"
swift build -c release --product parleyd --scratch-path .build-bench 2>&1 | tail -1
swift build -c release --package-path Benchmarks --product parley-load 2>&1 | tail -1
SP=; DATA=
start() { DATA=$(mktemp -d); taskset -c 0 .build-bench/release/parleyd --port 18383 --data-dir "$DATA" --admin-token st-$$ --password-cost 4 --log-level warning >"$OUT/parleyd.log" 2>&1 & SP=$!
  for _ in $(seq 100); do curl -s -o /dev/null http://127.0.0.1:18383/health && return; sleep 0.1; done; }
stop() { kill $SP 2>/dev/null || true; wait $SP 2>/dev/null || true; rm -rf "$DATA"; }
trap stop EXIT
L() { timeout 300 taskset -c 1 Benchmarks/.build/release/parley-load --url http://127.0.0.1:18383 --admin-token st-$$ --server-pid $SP "$@"; }
for r in $(seq "$RUNS"); do start; L --storm "$K" --json "$OUT/storm-$r.json"; stop; done
[ "$IDLE" -gt 0 ] && { start; L --idle "$IDLE" --hold 5 --json "$OUT/idle-$IDLE.json"; stop; }
