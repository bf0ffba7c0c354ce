#!/bin/bash
# Where parleyd's time goes under load: release parleyd pinned to CPU0, parley-load on CPU1 (flat out,
# PAIRS pairs), `perf record` (cpu-clock: this VM has no hardware counters) on the server for SECONDS.
# Prints the top symbols (self time), the split by library, and writes $OUT/perf.data.
#   scripts/bench/profile.sh            # PAIRS=100 RATE=0 SECONDS=10 OUT=/tmp/parley-profile
set -euo pipefail
# Every load here comes from one address: parleyd's per-client rate limits would measure themselves.
export PARLEY_RATE_LIMITS=off
cd "$(dirname "$0")/../.."
PAIRS=${PAIRS:-100}; RATE=${RATE:-0}; SECS=${SECONDS_:-10}; OUT=${OUT:-/tmp/parley-profile}; CALLGRAPH=${CALLGRAPH:-dwarf}
command -v perf >/dev/null || apt-get install -y linux-perf >/dev/null
mkdir -p "$OUT"
swift build -c release --product parleyd --scratch-path .build-bench 2>&1 | tail -1
swift build -c release --package-path Benchmarks --product parley-load 2>&1 | tail -1
DATA=$(mktemp -d); TOKEN=profile-$$
taskset -c 0 .build-bench/release/parleyd --port 18282 --data-dir "$DATA" --admin-token $TOKEN --password-cost 4 --log-level warning >"$OUT/parleyd.log" 2>&1 &
SP=$!
trap 'kill $SP 2>/dev/null || true; wait $SP 2>/dev/null || true; rm -rf "$DATA"' EXIT
for _ in $(seq 100); do curl -s -o /dev/null http://127.0.0.1:18282/health && break; sleep 0.1; done
taskset -c 1 Benchmarks/.build/release/parley-load --url http://127.0.0.1:18282 --admin-token $TOKEN --server-pid $SP \
  --pairs "$PAIRS" --rate "$RATE" --warmup 3 --duration $((SECS + 4)) --quiet --json "$OUT/load.json" &
LP=$!
sleep 6   # setup and warm-up
taskset -c 1 perf record -e cpu-clock -F 499 --call-graph "$CALLGRAPH" -p $SP -o "$OUT/perf.data" -- sleep "$SECS" 2>&1 | tail -1
wait $LP
echo "== top symbols (self)"
perf report -i "$OUT/perf.data" --no-children --sort symbol --stdio 2>/dev/null | grep -E '^ +[0-9]' | head -40
echo "== by library"
perf report -i "$OUT/perf.data" --no-children --sort dso --stdio 2>/dev/null | grep -E '^ +[0-9]' | head -15
