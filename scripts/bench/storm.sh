#!/bin/bash
# Reconnect storm and a large idle fleet against a release parleyd pinned to CPU0 (generator on CPU1).
#   scripts/bench/storm.sh        # K=5000 RUNS=3 IDLE=15000 (fd limit here: 20,000 per process)
#   TARGETS="parley prosody" scripts/bench/storm.sh   # also Prosody 0.12 (scripts/bench/prosody.sh):
#       its visitors resume with XEP-0198 instead of resubscribing from a cursor
set -euo pipefail
# Every load here comes from one address: parleyd's per-client rate limits would measure themselves.
export PARLEY_RATE_LIMITS=off
cd "$(dirname "$0")/../.."
K=${K:-5000}; RUNS=${RUNS:-3}; IDLE=${IDLE:-15000}; OUT=${OUT:-/tmp/parley-storm}; mkdir -p "$OUT"
TARGETS=${TARGETS:-parley}
swift build -c release --product parleyd --scratch-path .build-bench 2>&1 | tail -1
swift build -c release --package-path Benchmarks --product parley-load 2>&1 | tail -1
SP=; DATA=; URL=; EXTRA=()
start() {
  DATA=$(mktemp -d)
  if [ "$1" = prosody ]; then
    SP=$(PROSODY_PORT=18383 PROSODY_CPU=0 scripts/bench/prosody.sh start "$DATA"); EXTRA=(--target prosody)
  else
    taskset -c 0 .build-bench/release/parleyd --port 18383 --data-dir "$DATA" --admin-token st-$$ --password-cost 4 --log-level warning >"$OUT/parleyd.log" 2>&1 & SP=$!
    EXTRA=(--admin-token st-$$)
    for _ in $(seq 100); do curl -s -o /dev/null http://127.0.0.1:18383/health && break; sleep 0.1; done
  fi
}
stop() {  # Prosody is not this shell's child: wait by polling.
  [ -n "$SP" ] && { kill $SP 2>/dev/null || true; for _ in $(seq 100); do kill -0 $SP 2>/dev/null || break; sleep 0.1; done; kill -9 $SP 2>/dev/null || true; wait $SP 2>/dev/null || true; }
  [ -n "$DATA" ] && rm -rf "$DATA"
  SP=; DATA=
}
trap stop EXIT
L() { timeout "${TIMEOUT:-600}" taskset -c 1 Benchmarks/.build/release/parley-load --url http://127.0.0.1:18383 "${EXTRA[@]}" --server-pid $SP "$@"; }
for target in $TARGETS; do
  p=; [ "$target" = parley ] || p=$target-
  for r in $(seq "$RUNS"); do start "$target"; L --storm "$K" --json "$OUT/${p}storm-$r.json" || echo "   (storm run failed: exit $?)"; stop; done
  [ "$IDLE" -gt 0 ] && { start "$target"; L --idle "$IDLE" --hold 5 --json "$OUT/${p}idle-$IDLE.json" || echo "   (idle run failed: exit $?)"; stop; }
done
