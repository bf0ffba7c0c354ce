#!/usr/bin/env bash
# Runs the Swift suite several times in a row beside a CPU hog and a neighbour that fsyncs all the
# time, the conditions that once made tests time out (docs/testing.md). Fails when any run fails;
# judged by exit codes, not by summary lines.
#
#   bash scripts/stress-suite.sh            # 5 runs
#   bash scripts/stress-suite.sh 10         # 10 runs
#
# PARLEY_STRESS_SLOW_FSYNC_MS=40 also makes every fsync of the suite's own process wait that long
# (an LD_PRELOAD shim built with cc): a slow disk on demand, where the neighbour alone does not slow
# the disk much. PARLEY_STRESS_RUN_TIMEOUT (seconds, default 900) bounds each run; the neighbours
# never outlive the script. Logs stay in PARLEY_STRESS_LOG_DIR (default: a new temporary folder).
set -euo pipefail
cd "$(dirname "$0")/.."

runs="${1:-5}"
run_timeout="${PARLEY_STRESS_RUN_TIMEOUT:-900}"
slow_fsync_ms="${PARLEY_STRESS_SLOW_FSYNC_MS:-0}"
logs="${PARLEY_STRESS_LOG_DIR:-$(mktemp -d -t parley-stress-logs.XXXXXX)}"
mkdir -p "$logs"
export SWIFT_BACKTRACE="${SWIFT_BACKTRACE:-enable=yes,threads=crashed,registers=none,images=none}"

swift build --build-tests

scratch="$(mktemp -d -t parley-stress.XXXXXX)"
neighbours=()
current_run=""
stop_neighbours() {
    for pid in $current_run "${neighbours[@]}"; do kill "$pid" 2>/dev/null || true; done
    for pid in $current_run "${neighbours[@]}"; do wait "$pid" 2>/dev/null || true; done
    neighbours=()
    rm -rf "$scratch"
}
trap stop_neighbours EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# Both neighbours end on their own after the longest the runs can take, should the trap never run.
budget=$(( runs * run_timeout + 60 ))
timeout "$budget" sh -c 'while :; do :; done' &
neighbours+=($!)
timeout "$budget" sh -c 'while :; do dd if=/dev/zero of="$1/neighbour" bs=4k count=256 oflag=dsync 2>/dev/null; done' sh "$scratch" &
neighbours+=($!)

preload=""
if [ "$slow_fsync_ms" != "0" ]; then
    cat >"$scratch/slow-fsync.c" <<'EOF'
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdlib.h>
#include <time.h>
static void slow(void) {
    const char *v = getenv("PARLEY_STRESS_SLOW_FSYNC_MS");
    long ms = v ? atol(v) : 0;
    struct timespec t = { ms / 1000, (ms % 1000) * 1000000L };
    nanosleep(&t, 0);
}
int fsync(int fd) { static int (*real)(int); if (!real) real = (int (*)(int))dlsym(RTLD_NEXT, "fsync"); slow(); return real(fd); }
int fdatasync(int fd) { static int (*real)(int); if (!real) real = (int (*)(int))dlsym(RTLD_NEXT, "fdatasync"); slow(); return real(fd); }
EOF
    cc -shared -fPIC -O2 -o "$scratch/slow-fsync.so" "$scratch/slow-fsync.c" -ldl
    preload="$scratch/slow-fsync.so"
    echo "every fsync of the suite waits ${slow_fsync_ms} ms more"
fi

echo "$runs runs beside a CPU hog and an fsync-heavy neighbour; logs in $logs"
failed=0
for run in $(seq 1 "$runs"); do
    log="$logs/run-$run.log"
    started=$SECONDS
    status=0
    # In the background and waited for, so that a signal to this script stops the run at once.
    # 8 tests at a time, as the test command runs them (scripts/test.sh).
    SWT_EXPERIMENTAL_MAXIMUM_PARALLELIZATION_WIDTH="${SWT_EXPERIMENTAL_MAXIMUM_PARALLELIZATION_WIDTH:-8}" \
        LD_PRELOAD="$preload" timeout "$run_timeout" swift test --skip-build >"$log" 2>&1 &
    current_run=$!
    wait "$current_run" || status=$?
    current_run=""
    load="$(cut -d' ' -f1-3 /proc/loadavg)"
    if [ "$status" -eq 0 ]; then
        echo "run $run/$runs: pass ($(( SECONDS - started )) s; load average $load)"
    else
        failed=$(( failed + 1 ))
        echo "run $run/$runs: FAIL, exit $status ($(( SECONDS - started )) s; load average $load); log: $log"
        grep -E "recorded an issue|Fatal error|Crash" "$log" | head -20 || true
    fi
done

echo "$(( runs - failed )) of $runs runs passed"
[ "$failed" -eq 0 ]
