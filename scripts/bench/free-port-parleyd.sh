# Sourced by the benchmark scripts: starts "$SCRATCH/$CONFIG/parleyd" on a free port of 127.0.0.1
# with a fresh data directory and an operator token, and stops it (and removes the directory) when
# the script exits. Sets SP (its pid), PORT, TOKEN and DATA.
#   start_parleyd NAME [extra parleyd arguments…]
start_parleyd() {
  export PARLEY_RATE_LIMITS=off  # all load from one address: the per-client limits would measure themselves
  local name=$1; shift
  DATA=$(mktemp -d)
  local log=$DATA/parleyd.log
  TOKEN=$name-$$-$RANDOM
  "$SCRATCH/$CONFIG/parleyd" --host 127.0.0.1 --port 0 --data-dir "$DATA/data" --admin-token "$TOKEN" --password-cost 4 \
    --log-level warning "$@" >"$log" 2>&1 &
  SP=$!
  trap 'kill $SP 2>/dev/null || true; wait $SP 2>/dev/null || true; rm -rf "$DATA"' EXIT
  PORT=
  for _ in $(seq 300); do
    PORT=$(sed -n 's/.*is listening on http:\/\/[^:]*:\([0-9]*\).*/\1/p' "$log" | head -1)
    [ -n "$PORT" ] && return 0
    kill -0 $SP 2>/dev/null || { cat "$log"; echo "parleyd exited"; exit 1; }
    sleep 0.1
  done
  cat "$log"; echo "parleyd did not say its port"; exit 1
}
