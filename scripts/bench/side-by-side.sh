#!/bin/bash
# Parley vs the machine's floor (the Go WebSocket relay of /work/shared/bench), same workload shape,
# same generator (parley-load), server pinned to CPU0 and generator to CPU1, RUNS runs each,
# interleaved, then a table of medians with ranges and the ratios Parley ÷ floor.
#
#   scripts/bench/side-by-side.sh                 # defaults below
#   RUNS=5 PAIRS=200 RATE=1000 DURATION=10 scripts/bench/side-by-side.sh
#
# Every generator run is under `timeout`; the whole script ends in bounded time (≈ RUNS × 1.5 min).
set -euo pipefail
cd "$(dirname "$0")/../.."
ROOT=$PWD
RUNS=${RUNS:-3}
PAIRS=${PAIRS:-100}
RATE=${RATE:-1000}            # open-loop msg/s in all, for the latency comparison
DURATION=${DURATION:-10}
STEP=${STEP:-1}              # also find the knee (rate until p99 > 100 ms or a loss)
IDLE=${IDLE:-5000}            # idle connections (the fd limit here is 20,000 per process)
QUIET_WAIT=${QUIET_WAIT:-60}  # seconds to wait for a calm machine before each run (0: don't)
OUT=${OUT:-/tmp/parley-side-by-side}
WSB_SRC=${WSB_SRC:-/work/shared/bench/wsb.go}
PPORT=18181; FPORT=9191; TOKEN=bench-$$
mkdir -p "$OUT"; rm -f "$OUT"/*.json

echo "== building (release)"
swift build -c release --product parleyd --scratch-path .build-bench 2>&1 | tail -1
swift build -c release --package-path Benchmarks --product parley-load 2>&1 | tail -1
LOAD=$ROOT/Benchmarks/.build/release/parley-load
PARLEYD=$ROOT/.build-bench/release/parleyd
if [ ! -x /tmp/wsb/wsb ]; then
  command -v go >/dev/null || apt-get install -y golang-go golang-github-gorilla-websocket-dev >/dev/null
  mkdir -p /tmp/wsb/src/wsb && cp "$WSB_SRC" /tmp/wsb/src/wsb/main.go
  (cd /tmp/wsb && GO111MODULE=off GOPATH=/tmp/wsb:/usr/share/gocode go build -o wsb wsb)
fi

SP=
start_server() {  # $1 = parley|floor
  if [ "$1" = parley ]; then
    DATA=$(mktemp -d /tmp/parley-bench-data.XXXX)
    taskset -c 0 "$PARLEYD" --port $PPORT --data-dir "$DATA" --admin-token $TOKEN --password-cost 4 --log-level warning >"$OUT/parleyd.log" 2>&1 &
    SP=$!; URL=http://127.0.0.1:$PPORT
  else
    taskset -c 0 /tmp/wsb/wsb -mode server -addr 127.0.0.1:$FPORT -p 1 >"$OUT/wsb.log" 2>&1 &
    SP=$!; URL=http://127.0.0.1:$FPORT
  fi
  for _ in $(seq 100); do curl -s -o /dev/null "$URL/${2:-}" 2>/dev/null && return 0; sleep 0.1; done
  echo "server did not start"; exit 1
}
stop_server() { kill $SP 2>/dev/null || true; wait $SP 2>/dev/null || true; [ -n "${DATA:-}" ] && rm -rf "$DATA"; DATA=; }
trap stop_server EXIT
calm() { if [ "$QUIET_WAIT" -gt 0 ]; then /work/shared/bench/quiet.sh "$QUIET_WAIT" || true; fi; }
gen() {  # $1 = json file, rest = parley-load options
  local f=$1; shift
  timeout 180 taskset -c 1 "$LOAD" --url "$URL" --server-pid $SP --quiet --json "$f" "$@" || echo "   (run failed: exit $?)"
}

for run in $(seq "$RUNS"); do
  for target in parley floor; do
    calm
    echo "== run $run: $target"
    if [ $target = parley ]; then start_server parley health; EXTRA=(--admin-token $TOKEN); else start_server floor plaintext; EXTRA=(--target floor); fi
    gen "$OUT/$target-rate-$run.json" "${EXTRA[@]}" --pairs "$PAIRS" --rate "$RATE" --duration "$DURATION" --warmup 2
    gen "$OUT/$target-flat-$run.json" "${EXTRA[@]}" --pairs "$PAIRS" --rate 0 --duration "$DURATION" --warmup 2
    [ "$STEP" = 1 ] && gen "$OUT/$target-step-$run.json" "${EXTRA[@]}" --pairs "$PAIRS" --step --step-start 250 --step-factor 1.5 --step-max 60000 --duration 3
    stop_server
    # Idle memory on a fresh server, so earlier runs' garbage does not count.
    if [ $target = parley ]; then start_server parley health; else start_server floor plaintext; fi
    gen "$OUT/$target-idle-$run.json" "${EXTRA[@]}" --idle "$IDLE" --hold 5
    stop_server
  done
done

python3 - "$OUT" "$RUNS" "$PAIRS" "$RATE" "$IDLE" <<'EOF'
import json, sys, glob, statistics
out, runs, pairs, rate, idle = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4], sys.argv[5]
def load(target, kind):
    rs = []
    for r in range(1, runs + 1):
        try: rs.append(json.load(open(f"{out}/{target}-{kind}-{r}.json")))
        except Exception: pass
    return rs
def phase(rs): return [r["phases"][0] for r in rs if r.get("phases")]
def fig(vals):
    vals = [v for v in vals if v is not None]
    if not vals: return None, "n/a"
    m = statistics.median(vals)
    fmt = (lambda v: f"{v:,.0f}") if m >= 100 else (lambda v: f"{v:.2f}") if m < 10 else (lambda v: f"{v:.1f}")
    return m, f"{fmt(m)} ({fmt(min(vals))}–{fmt(max(vals))})" if len(vals) > 1 else fmt(m)
rows = []
def row(name, key):
    p, f = key(load("parley", name[0])), key(load("floor", name[0]))
    (pm, ps), (fm, fs) = fig(p), fig(f)
    ratio = f"{pm / fm:.2g}×" if pm and fm else "n/a"
    rows.append((name[1], ps, fs, ratio, len([v for v in p if v is not None]), len([v for v in f if v is not None])))
lat = lambda k: (lambda rs: [x["latency_ms"][k] for x in phase(rs)])
row(("rate", f"open loop {rate} msg/s: delivered msg/s"), lambda rs: [x["delivered_per_s"] for x in phase(rs)])
row(("rate", "  p50 ms"), lat("p50")); row(("rate", "  p99 ms"), lat("p99")); row(("rate", "  p99.9 ms"), lat("p99_9")); row(("rate", "  max ms"), lat("max"))
row(("rate", "  server CPU µs per delivered msg"), lambda rs: [x.get("server_cpu_us_per_delivered") for x in phase(rs)])
row(("flat", "flat out (1 in flight per sender): delivered msg/s"), lambda rs: [x["delivered_per_s"] for x in phase(rs)])
row(("flat", "  p99 ms"), lat("p99"))
row(("flat", "  server CPU µs per delivered msg"), lambda rs: [x.get("server_cpu_us_per_delivered") for x in phase(rs)])
row(("flat", "  server RSS MB"), lambda rs: [x.get("server_rss_kb", 0) / 1024 for x in phase(rs)])
row(("flat", "  generator CPU %"), lambda rs: [100 * x["generator_cpu_s"] / x["seconds"] for x in phase(rs)])
row(("step", "knee: highest step rate with p99 ≤ 100 ms, nothing lost (msg/s)"), lambda rs: [r["knee"]["target_rate"] for r in rs if "knee" in r])
row(("step", "  p99 ms at the knee"), lambda rs: [r["knee"]["latency_ms"]["p99"] for r in rs if "knee" in r])
row(("step", "  server CPU µs per delivered msg at the knee"), lambda rs: [r["knee"].get("server_cpu_us_per_delivered") for r in rs if "knee" in r])
row(("idle", f"idle fleet {idle}: KB per connection"), lambda rs: [r["idle"].get("server_bytes_per_connection", 0) / 1024 for r in rs if "idle" in r])
row(("idle", "  connects/s (to the ready frame)"), lambda rs: [r["idle"]["connects_per_s"] for r in rs if "idle" in r])
# The step run's last phase is the overload that ended it: its backlog may outlast the drain, so it is not counted.
lost = sum(x["lost"] + x["duplicates"] for t in ("parley", "floor") for k in ("rate", "flat") for x in phase(load(t, k)))
lost += sum(x["lost"] + x["duplicates"] for t in ("parley", "floor") for r in load(t, "step") for x in r.get("phases", [])[:-1])
print(f"\n{pairs} pairs, {runs} runs each; server on CPU0, generator on CPU1; median (min–max)\n")
print(f"| figure | Parley | floor (Go relay) | Parley ÷ floor | n |")
print(f"|---|---|---|---|---|")
for name, p, f, r, np_, nf in rows: print(f"| {name} | {p} | {f} | {r} | {np_}/{nf} |")
print(f"\nlost + duplicated messages over all runs: {lost}")
EOF
