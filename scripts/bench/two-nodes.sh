#!/bin/bash
# One parleyd vs two parleyd nodes on one PostgreSQL 15 (issue 6): same workload, same generator,
# RUNS runs each, interleaved, then a table of medians with ranges.
#
#   scripts/bench/two-nodes.sh                    # defaults below
#   RUNS=5 STEP=0 scripts/bench/two-nodes.sh      # more runs, no knee search
#
# one: a single parleyd on PostgreSQL; visitors and agents on it.
# two: two parleyd on the same database; visitors (and the setup's admin calls) on node 1, agents on
#      node 2 (parley-load --agent-url), so every message is committed on one node and reaches the
#      other's socket through LISTEN/NOTIFY plus a read of the events.
# Placement: node 1 on CPU0, node 2 on CPU1 (NODE1_CPU, NODE2_CPU); PostgreSQL and the generator
# unpinned. The machine has 2 cores, so two nodes cannot show scale-out here, only what crossing
# nodes costs. A private PostgreSQL 15 (scripts/test-postgres.sh, port PARLEY_TEST_POSTGRES_PORT,
# default 54377) runs for the whole script; each configuration of each run gets a fresh database.
# Every generator run is under `timeout`; before each run the script waits (up to QUIET_WAIT s)
# for a calm machine and records the load average.
set -euo pipefail
# Every load here comes from one address: parleyd's per-client rate limits would measure themselves.
export PARLEY_RATE_LIMITS=off
cd "$(dirname "$0")/../.."
ROOT=$PWD
RUNS=${RUNS:-3}
PAIRS=${PAIRS:-100}
RATE=${RATE:-1000}            # open-loop msg/s in all
DURATION=${DURATION:-10}
STEP=${STEP:-1}               # also find the knee (rate until p99 > 100 ms or a loss)
QUIET_WAIT=${QUIET_WAIT:-60}  # seconds to wait for a calm machine before each run (0: don't)
DRAIN=${DRAIN:-60}            # seconds a run waits for late deliveries and acks before counting the rest lost
CONFIGS=${CONFIGS:-one two}
GEN_TIMEOUT=${GEN_TIMEOUT:-300}
NODE1_CPU=${NODE1_CPU:-0}
NODE2_CPU=${NODE2_CPU:-1}
OUT=${OUT:-/tmp/parley-two-nodes}
export PARLEY_TEST_POSTGRES_PORT=${PARLEY_TEST_POSTGRES_PORT:-54377}
PORT1=18191; PORT2=18192; TOKEN=bench-$$
PARLEYD=${PARLEYD:-$ROOT/.build/release/parleyd}
LOAD=${LOAD:-$ROOT/Benchmarks/.build/release/parley-load}
mkdir -p "$OUT"; rm -f "$OUT"/*.json "$OUT"/*.txt

if [ "${SKIP_BUILD:-0}" != 1 ]; then
  echo "== building (release)"
  swift build -c release --product parleyd 2>&1 | tail -1
  swift build -c release --package-path Benchmarks --product parley-load 2>&1 | tail -1
fi

P1=; P2=; PG_URL=
stop_nodes() {
  for p in $P1 $P2; do kill $p 2>/dev/null || true; done
  for p in $P1 $P2; do
    for _ in $(seq 100); do kill -0 $p 2>/dev/null || break; sleep 0.1; done
    kill -9 $p 2>/dev/null || true
    wait $p 2>/dev/null || true
  done
  P1=; P2=
}
cleanup() { stop_nodes; scripts/test-postgres.sh stop; rm -rf "${DATA_DIRS[@]}"; }
trap cleanup EXIT

echo "== PostgreSQL 15 on port $PARLEY_TEST_POSTGRES_PORT"
PG_URL=$(scripts/test-postgres.sh start)
PG_BASE=${PG_URL%/*}          # postgres://postgres@127.0.0.1:PORT
PG_STATE="${TMPDIR:-/tmp}/parley-test-postgres-$PARLEY_TEST_POSTGRES_PORT"
psql_admin() { psql "$PG_URL" -v ON_ERROR_STOP=1 -q -c "$1"; }

# CPU seconds (user + system, children included) of this cluster's postmaster and its backends.
pg_cpu() {
  local pm; pm=$(head -1 "$PG_STATE/data/postmaster.pid")
  { echo "$pm"; ps -o pid= --ppid "$pm"; } | while read -r p; do
    cut -d')' -f2- "/proc/$p/stat" 2>/dev/null || true
  done | awk -v t="$(getconf CLK_TCK)" '{s += $12 + $13 + $14 + $15} END {printf "%.2f", s / t}'
}

DATA_DIRS=()
start_node() {  # $1 = cpu, $2 = port, $3 = database URL; sets NODE_PID
  local data; data=$(mktemp -d /tmp/parley-two-nodes-data.XXXX); DATA_DIRS+=("$data")
  taskset -c "$1" "$PARLEYD" serve --database "$3" --port "$2" --data-dir "$data" \
    --admin-token $TOKEN --password-cost 4 --log-level warning >>"$OUT/parleyd-$2.log" 2>&1 &
  NODE_PID=$!
}
wait_ready() {
  for _ in $(seq 200); do curl -s -o /dev/null "http://127.0.0.1:$1/health" 2>/dev/null && return 0; sleep 0.1; done
  echo "parleyd on port $1 did not start"; tail -5 "$OUT/parleyd-$1.log"; exit 1
}
calm() { if [ "$QUIET_WAIT" -gt 0 ]; then "${SHARED:-$PWD/../shared}/bench/quiet.sh" "$QUIET_WAIT" || true; fi; }
gen() {  # $1 = json file, rest = parley-load options
  local f=$1; shift
  local cpu0 t0; cpu0=$(pg_cpu); t0=$(date +%s.%N)
  timeout "$GEN_TIMEOUT" "$LOAD" "${TARGET_ARGS[@]}" --admin-token $TOKEN --quiet --drain "$DRAIN" --json "$f" "$@" \
    || echo "   (run failed: exit $?)"
  # PostgreSQL's CPU over the whole generator run (setup and drain included), beside the record.
  echo "$(pg_cpu) $cpu0 $(date +%s.%N) $t0" | awk '{printf "{\"pg_cpu_s\": %.2f, \"wall_s\": %.2f}\n", $1 - $2, $3 - $4}' > "${f%.json}.pg"
}

for run in $(seq "$RUNS"); do
  for config in $CONFIGS; do
    calm
    LOADAVG=$(cut -d' ' -f1-3 /proc/loadavg)
    echo "$config $run $LOADAVG" >> "$OUT/loadavg.txt"
    echo "== run $run: $config node(s); load average $LOADAVG"
    DB=parley_${config}_$run
    psql_admin "DROP DATABASE IF EXISTS $DB"; psql_admin "CREATE DATABASE $DB"
    start_node "$NODE1_CPU" $PORT1 "$PG_BASE/$DB"; P1=$NODE_PID; wait_ready $PORT1
    TARGET_ARGS=(--url http://127.0.0.1:$PORT1 --server-pid "$P1")
    if [ "$config" = two ]; then
      start_node "$NODE2_CPU" $PORT2 "$PG_BASE/$DB"; P2=$NODE_PID; wait_ready $PORT2
      TARGET_ARGS=(--url http://127.0.0.1:$PORT1 --agent-url http://127.0.0.1:$PORT2 --server-pid "$P1" --server-pid "$P2")
    fi
    gen "$OUT/$config-rate-$run.json" --pairs "$PAIRS" --rate "$RATE" --duration "$DURATION" --warmup 2
    gen "$OUT/$config-flat-$run.json" --pairs "$PAIRS" --rate 0 --duration "$DURATION" --warmup 2
    [ "$STEP" = 1 ] && gen "$OUT/$config-step-$run.json" --pairs "$PAIRS" --step --step-start 250 --step-factor 1.5 --step-max 60000 --duration 3
    stop_nodes
    psql_admin "DROP DATABASE $DB"
  done
done

python3 scripts/bench/two-nodes-table.py "$OUT" "$RUNS" "$PAIRS" "$RATE" "$DRAIN" "$NODE1_CPU" "$NODE2_CPU"
