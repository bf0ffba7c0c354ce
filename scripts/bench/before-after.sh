#!/bin/bash
# Two parleyd builds, the same workloads, interleaved: what an optimisation changed.
#
#   BEFORE=/path/to/old/parleyd AFTER=.build-bench/release/parleyd scripts/bench/before-after.sh
#   RUNS=3 PAIRS=100 RATE=1000 DURATION=10 IDLE=5000 LOAD=Benchmarks/.build/release/parley-load …
#
# Build the old one from a worktree: git worktree add --detach /tmp/old REV &&
# (cd /tmp/old && swift build -c release --product parleyd --scratch-path .build-bench).
# Server pinned to CPU0, generator to CPU1; each run under `timeout`; ends in ≈ RUNS × 2 × 1 min.
set -euo pipefail
# Every load here comes from one address: parleyd's per-client rate limits would measure themselves.
export PARLEY_RATE_LIMITS=off
cd "$(dirname "$0")/../.."
RUNS=${RUNS:-3}; PAIRS=${PAIRS:-100}; RATE=${RATE:-1000}; DURATION=${DURATION:-10}; IDLE=${IDLE:-5000}
QUIET_WAIT=${QUIET_WAIT:-60}; OUT=${OUT:-/tmp/parley-before-after}
LOAD=${LOAD:-$PWD/Benchmarks/.build/release/parley-load}
: "${BEFORE:?BEFORE=path to the old parleyd}" "${AFTER:=$PWD/.build-bench/release/parleyd}"
[ -x "$LOAD" ] || swift build -c release --package-path Benchmarks --product parley-load 2>&1 | tail -1
PORT=18383; TOKEN=ab-$$; SP=; DATA=
mkdir -p "$OUT"; rm -f "$OUT"/*.json

start() {
  DATA=$(mktemp -d /tmp/parley-ab-data.XXXX)
  taskset -c 0 "$1" --port $PORT --data-dir "$DATA" --admin-token $TOKEN --password-cost 4 --log-level warning >"$OUT/parleyd.log" 2>&1 &
  SP=$!
  for _ in $(seq 100); do curl -s -o /dev/null "http://127.0.0.1:$PORT/health" && return 0; sleep 0.1; done
  echo "parleyd did not start"; cat "$OUT/parleyd.log"; exit 1
}
stop() { [ -n "$SP" ] && { kill $SP 2>/dev/null || true; wait $SP 2>/dev/null || true; }; [ -n "$DATA" ] && rm -rf "$DATA"; SP=; DATA=; }
trap stop EXIT
calm() { if [ "$QUIET_WAIT" -gt 0 ]; then "${SHARED:-$PWD/../shared}/bench/quiet.sh" "$QUIET_WAIT" || true; fi; }
gen() {
  local f=$1; shift
  timeout 180 taskset -c 1 "$LOAD" --url "http://127.0.0.1:$PORT" --admin-token $TOKEN --server-pid $SP --quiet --json "$f" "$@" \
    || echo "   (run failed: exit $?)"
}

for run in $(seq "$RUNS"); do
  for which in before after; do
    bin=$BEFORE; [ $which = after ] && bin=$AFTER
    calm; echo "== run $run: $which"
    start "$bin"
    gen "$OUT/$which-rate-$run.json" --pairs "$PAIRS" --rate "$RATE" --duration "$DURATION" --warmup 2
    gen "$OUT/$which-flat-$run.json" --pairs "$PAIRS" --rate 0 --duration "$DURATION" --warmup 2
    stop
    start "$bin"
    gen "$OUT/$which-idle-$run.json" --idle "$IDLE" --hold 5
    stop
  done
done

python3 - "$OUT" "$RUNS" "$PAIRS" "$RATE" "$IDLE" <<'EOF'
import json, sys, statistics
out, runs, pairs, rate, idle = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4], sys.argv[5]
def load(which, kind):
    rs = []
    for r in range(1, runs + 1):
        try: rs.append(json.load(open(f"{out}/{which}-{kind}-{r}.json")))
        except Exception: pass
    return rs
def phase(rs): return [r["phases"][0] for r in rs if r.get("phases")]
def fig(vals):
    vals = [v for v in vals if v is not None]
    if not vals: return None, "n/a"
    m = statistics.median(vals)
    fmt = (lambda v: f"{v:,.0f}") if m >= 100 else (lambda v: f"{v:.2f}") if m < 10 else (lambda v: f"{v:.1f}")
    return m, f"{fmt(m)} ({fmt(min(vals))}–{fmt(max(vals))})" if len(vals) > 1 else fmt(m)
print(f"\n{pairs} pairs, {runs} runs each, interleaved; server on CPU0, generator on CPU1; median (min–max)\n")
print("| figure | before | after | after ÷ before |")
print("|---|---|---|---|")
def row(label, kind, key):
    (bm, bs), (am, as_) = fig(key(load("before", kind))), fig(key(load("after", kind)))
    print(f"| {label} | {bs} | {as_} | {f'{am / bm:.2f}×' if am and bm else 'n/a'} |")
lat = lambda k: (lambda rs: [x["latency_ms"][k] for x in phase(rs)])
row(f"open loop {rate} msg/s: p50 ms", "rate", lat("p50"))
row("  p99 ms", "rate", lat("p99"))
row("  p99.9 ms", "rate", lat("p99_9"))
row("  server CPU µs per delivered msg", "rate", lambda rs: [x.get("server_cpu_us_per_delivered") for x in phase(rs)])
row("flat out: delivered (= durable) msg/s", "flat", lambda rs: [x["delivered_per_s"] for x in phase(rs)])
row("  p99 ms", "flat", lat("p99"))
row("  server CPU µs per delivered msg", "flat", lambda rs: [x.get("server_cpu_us_per_delivered") for x in phase(rs)])
row(f"idle fleet {idle}: KB per connection", "idle", lambda rs: [r["idle"].get("server_bytes_per_connection", 0) / 1024 for r in rs if "idle" in r])
row("  connects/s", "idle", lambda rs: [r["idle"]["connects_per_s"] for r in rs if "idle" in r])
bad = sum(x["lost"] + x["duplicates"] for w in ("before", "after") for k in ("rate", "flat") for x in phase(load(w, k)))
print(f"\nlost + duplicated messages over all runs: {bad}")
EOF
