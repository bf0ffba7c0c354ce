#!/bin/bash
# Parley vs two XMPP peers (Prosody 0.12 and ejabberd 23.01: XMPP over WebSocket, every message
# archived by mod_mam in SQLite) vs the machine's floor (the Go WebSocket relay of ../shared/bench):
# same workload shape, same generator (parley-load), server pinned to CPU0 and generator to CPU1,
# RUNS runs each, interleaved, then a table of medians with ranges and the ratios Parley ÷ Prosody,
# Parley ÷ ejabberd and Parley ÷ floor.
#
#   scripts/bench/side-by-side.sh                 # defaults below
#   RUNS=5 PAIRS=200 RATE=1000 DURATION=10 scripts/bench/side-by-side.sh
#   TARGETS="parley floor" scripts/bench/side-by-side.sh     # without the XMPP peers
#
# Prosody comes from Debian (apt-get install prosody lua-dbi-sqlite3): installed here when run as
# root, otherwise left out with a note; scripts/bench/prosody.sh starts a private one per run.
# ejabberd likewise (apt-get install ejabberd erlang-p1-sqlite3; the package's own service is
# stopped and disabled): scripts/bench/ejabberd.sh starts a private Erlang VM per run, without
# distribution (no EPMD, no node name), one scheduler on CPU0, XMPP over WebSocket at
# /xmpp-websocket, accounts, rosters and archive in one SQLite file (WAL, synchronous FULL, as
# Prosody's), mod_mam `default: always`; the measured pid is the VM's (beam.smp), which does all
# the work. Both XMPP peers get the one XMPP client (SASL PLAIN, XEP-0198 acks after every message).
# Every generator run is under `timeout`; the whole script ends in bounded time (≈ RUNS × 8 min
# with Prosody, whose overloaded runs drain slowly, and as much again with ejabberd).
set -euo pipefail
# Every load here comes from one address: parleyd's per-client rate limits would measure themselves.
export PARLEY_RATE_LIMITS=off
cd "$(dirname "$0")/../.."
ROOT=$PWD
RUNS=${RUNS:-3}
PAIRS=${PAIRS:-100}
RATE=${RATE:-1000}            # open-loop msg/s in all, for the latency comparison
DURATION=${DURATION:-10}
STEP=${STEP:-1}              # also find the knee (rate until p99 > 100 ms or a loss)
IDLE=${IDLE:-5000}            # idle connections (the fd limit here is 20,000 per process)
QUIET_WAIT=${QUIET_WAIT:-60}  # seconds to wait for a calm machine before each run (0: don't)
DRAIN=${DRAIN:-60}            # seconds a run waits for late deliveries and acks before counting the rest lost
TARGETS=${TARGETS:-parley prosody ejabberd floor}
GEN_TIMEOUT=${GEN_TIMEOUT:-300}
OUT=${OUT:-/tmp/parley-side-by-side}
SHARED=${SHARED:-$PWD/../shared}   # the shared/ folder beside the repository
WSB_SRC=${WSB_SRC:-$SHARED/bench/wsb.go}
PPORT=18181; FPORT=9191; XPORT=18282; EPORT=18283; TOKEN=bench-$$
mkdir -p "$OUT"; rm -f "$OUT"/*.json

echo "== building (release)"
# Only what the chosen targets need: parleyd for parley, the Go relay for floor.
if [[ " $TARGETS " == *" parley "* ]]; then
  swift build -c release --product parleyd --scratch-path .build-bench 2>&1 | tail -1
fi
swift build -c release --package-path Benchmarks --product parley-load 2>&1 | tail -1
LOAD=$ROOT/Benchmarks/.build/release/parley-load
PARLEYD=$ROOT/.build-bench/release/parleyd
if [[ " $TARGETS " == *" floor "* ]] && [ ! -x /tmp/wsb/wsb ]; then
  command -v go >/dev/null || apt-get install -y golang-go golang-github-gorilla-websocket-dev >/dev/null
  mkdir -p /tmp/wsb/src/wsb && cp "$WSB_SRC" /tmp/wsb/src/wsb/main.go
  (cd /tmp/wsb && GO111MODULE=off GOPATH=/tmp/wsb:/usr/share/gocode go build -o wsb wsb)
fi
# A peer from Debian: installed when missing and run as root (its own system service kept from
# running beside the benchmark), otherwise left out with a note.   ensure_peer NAME PACKAGE…
ensure_peer() {
  local name=$1; shift
  [[ " $TARGETS " == *" $name "* ]] && ! "scripts/bench/$name.sh" check || return 0
  if [ "$(id -u)" = 0 ]; then
    echo "== installing $* (Debian)"
    DEBIAN_FRONTEND=noninteractive timeout 600 apt-get install -y "$@" >/dev/null
    systemctl disable --now "$name" >/dev/null 2>&1 || service "$name" stop >/dev/null 2>&1 || true
  fi
  if ! "scripts/bench/$name.sh" check; then
    echo "== $name is not installed, so it is left out: apt-get install $* (as root)"
    TARGETS=${TARGETS//$name/}
  fi
}
ensure_peer prosody prosody lua-dbi-sqlite3
ensure_peer ejabberd ejabberd erlang-p1-sqlite3
# The packages' own services are not what is measured: if one is running anyway (installed
# earlier, started at boot), stop it. Told by its Debian pid file, not by `service … status`, which
# for ejabberd would start an Erlang node (and EPMD) just to ask.
for service in prosody ejabberd; do
  pid=$(cat "/run/$service/$service.pid" 2>/dev/null || true)
  if [[ " $TARGETS " == *" $service "* ]] && [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null; then
    echo "== stopping the system $service service (pid $pid)"
    systemctl disable --now "$service" >/dev/null 2>&1 || service "$service" stop >/dev/null 2>&1 || true
  fi
done

SP=
start_server() {  # $1 = parley|prosody|ejabberd|floor
  case $1 in
  parley)
    DATA=$(mktemp -d /tmp/parley-bench-data.XXXX)
    taskset -c 0 "$PARLEYD" --port $PPORT --data-dir "$DATA" --admin-token $TOKEN --password-cost 4 --log-level warning >"$OUT/parleyd.log" 2>&1 &
    SP=$!; URL=http://127.0.0.1:$PPORT; READY=health; EXTRA=(--admin-token $TOKEN) ;;
  prosody)
    DATA=$(mktemp -d /tmp/prosody-bench-data.XXXX)
    SP=$(PROSODY_PORT=$XPORT PROSODY_CPU=0 scripts/bench/prosody.sh start "$DATA")
    URL=http://127.0.0.1:$XPORT; READY=xmpp-websocket; EXTRA=(--target prosody) ;;
  ejabberd)
    DATA=$(mktemp -d /tmp/ejabberd-bench-data.XXXX)
    SP=$(EJABBERD_PORT=$EPORT EJABBERD_CPU=0 scripts/bench/ejabberd.sh start "$DATA")
    URL=http://127.0.0.1:$EPORT; READY=xmpp-websocket; EXTRA=(--target ejabberd) ;;
  floor)
    taskset -c 0 /tmp/wsb/wsb -mode server -addr 127.0.0.1:$FPORT -p 1 >"$OUT/wsb.log" 2>&1 &
    SP=$!; URL=http://127.0.0.1:$FPORT; READY=plaintext; EXTRA=(--target floor) ;;
  esac
  for _ in $(seq 100); do curl -s -o /dev/null "$URL/$READY" 2>/dev/null && return 0; sleep 0.1; done
  echo "server did not start"; exit 1
}
stop_server() {
  # Prosody and ejabberd are not this shell's children (their scripts started them), so wait by
  # polling, not with `wait`. SIGTERM stops ejabberd's VM cleanly.
  if [ -n "$SP" ]; then
    kill $SP 2>/dev/null || true
    for _ in $(seq 100); do kill -0 $SP 2>/dev/null || break; sleep 0.1; done
    kill -9 $SP 2>/dev/null || true
    wait $SP 2>/dev/null || true
  fi
  [ -n "${DATA:-}" ] && {
    cp "$DATA/prosody.log" "$OUT/prosody.log" 2>/dev/null || true
    cp "$DATA/log/ejabberd.log" "$OUT/ejabberd.log" 2>/dev/null || true
    rm -rf "$DATA"
  }
  SP=; DATA=
}
trap stop_server EXIT
calm() { if [ "$QUIET_WAIT" -gt 0 ]; then "${SHARED:-$PWD/../shared}/bench/quiet.sh" "$QUIET_WAIT" || true; fi; }
gen() {  # $1 = json file, rest = parley-load options
  local f=$1; shift
  timeout "$GEN_TIMEOUT" taskset -c 1 "$LOAD" --url "$URL" --server-pid $SP --quiet --drain "$DRAIN" --json "$f" "$@" || echo "   (run failed: exit $?)"
}

for run in $(seq "$RUNS"); do
  for target in $TARGETS; do
    calm
    echo "== run $run: $target"
    start_server $target
    gen "$OUT/$target-rate-$run.json" "${EXTRA[@]}" --pairs "$PAIRS" --rate "$RATE" --duration "$DURATION" --warmup 2
    gen "$OUT/$target-flat-$run.json" "${EXTRA[@]}" --pairs "$PAIRS" --rate 0 --duration "$DURATION" --warmup 2
    [ "$STEP" = 1 ] && gen "$OUT/$target-step-$run.json" "${EXTRA[@]}" --pairs "$PAIRS" --step --step-start 250 --step-factor 1.5 --step-max 60000 --duration 3
    stop_server
    # Idle memory on a fresh server, so earlier runs' garbage does not count.
    start_server $target
    gen "$OUT/$target-idle-$run.json" "${EXTRA[@]}" --idle "$IDLE" --hold 5
    stop_server
  done
done

python3 scripts/bench/side-by-side-table.py "$OUT" "$RUNS" "$PAIRS" "$RATE" "$IDLE" "$DRAIN"
