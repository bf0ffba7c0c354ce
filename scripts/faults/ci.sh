#!/usr/bin/env bash
# The short versions of every fault scenario, one after the other (≈ 5 min on 2 cores); exits
# non-zero when any failed, after running them all. Needs root, the Debian packages fuse3,
# libfuse3-3, iptables (and postgresql-15, python3-venv, as the rest of the suite), and built
# parleyd and parley (PARLEY_BIN_DIR, default `swift build --show-bin-path`).
#   bash scripts/faults/ci.sh                      # all
#   bash scripts/faults/ci.sh net-loss net-stall   # some
set -uo pipefail
cd "$(dirname "$0")"
all=(power-selftest power-loss net-loss net-slow-reader net-stall net-partition)
chosen=("${@:-${all[@]}}")
[ $# -eq 0 ] && chosen=("${all[@]}")
declare -A cmd=(
    [power-selftest]="bash power-loss.sh --self-test --sqlite-rounds 2"
    [power-loss]="bash power-loss.sh --cuts 5"
    [net-loss]="bash net-loss.sh --minutes 1 --sdk"
    [net-slow-reader]="bash net-slow-reader.sh --seconds 30 --slow-readers 10"
    [net-stall]="bash net-stall.sh --rounds 2 --sdk"
    [net-partition]="bash net-partition.sh --seconds 45"
)
failed=()
summary=()
start=$SECONDS
for name in "${chosen[@]}"; do
    if [ -z "${cmd[$name]:-}" ]; then echo "unknown scenario $name (one of ${all[*]})" >&2; exit 64; fi
    echo "=== $name: ${cmd[$name]}"
    t0=$SECONDS
    # Bounded: no scenario may hang CI (each bounds its own loops; this is the last resort).
    timeout -k 30 600 ${cmd[$name]}
    status=$?
    summary+=("$(printf '%-16s %-6s %4d s' "$name" "$([ $status = 0 ] && echo ok || echo FAIL:$status)" $((SECONDS - t0)))")
    [ $status = 0 ] || failed+=("$name")
done
echo "=== fault scenarios ($((SECONDS - start)) s)"
printf '  %s\n' "${summary[@]}"
echo "$(( ${#chosen[@]} - ${#failed[@]} )) passed, ${#failed[@]} failed"
[ ${#failed[@]} -eq 0 ]
