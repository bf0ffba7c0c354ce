#!/usr/bin/env bash
# The Swift suites that run concurrently (server, stores, ParleyKit) under ThreadSanitizer, in a
# build folder of their own (.build-tsan; about 16 minutes on 2 cores from scratch). Part of the
# test command (scripts/test.sh), so CI gates on it.
#
#   scripts/tsan.sh                      # ParleyServerTests, ParleyStoreTests, ParleyKitTests
#   scripts/tsan.sh --filter KitOutbox   # other arguments go to `swift test` instead
#
# With PARLEY_TEST_DATABASE_URL set (scripts/test-postgres.sh start), the stores run on PostgreSQL
# too. Fails when the runner fails or when TSan reports anything: the runner can print success and
# still exit 1 after a report, and a report printed with exit 0 is caught by counting them. First,
# a race on purpose (scripts/tsan/canary.swift) must be reported under the same options, so a count
# of 0 means something. Reports of dependencies whose ordering TSan cannot see are suppressed, each
# with its reason, in scripts/tsan/suppressions.txt; Parley's own code has none.
set -euo pipefail
cd "$(dirname "$0")/.."

export TSAN_OPTIONS="suppressions=$PWD/scripts/tsan/suppressions.txt halt_on_error=0 second_deadlock_stack=1 ${TSAN_OPTIONS:-}"
log="$(mktemp)"
canary="$(mktemp -d)"
trap 'rm -rf "$log" "$canary"' EXIT

swiftc -sanitize=thread scripts/tsan/canary.swift -o "$canary/race"
"$canary/race" > "$log" 2>&1 || true
if ! grep -q "WARNING: ThreadSanitizer:" "$log"; then
    cat "$log"
    echo "ThreadSanitizer did not report the canary's race: a clean run would prove nothing" >&2
    exit 1
fi

# The default set: the code that runs on many tasks at once. ParleyCoreTests are pure functions on
# one thread (some time the masking rules on the thread's CPU clock, which TSan slows tenfold);
# ParleyDurabilityTests kill and restart parleyd processes, whose races these suites already cover.
# SlowReaderTests is left out: it checks timing, not ordering (a reader in the test process must
# keep within 16 frames of eight senders while a stalled one is cut off), and under TSan's tenfold
# slowdown the keeping reader itself fell 16 frames behind and was cut off, once, in a fresh-clone run of .ci/run. It runs in
# the plain suite, and scripts/faults/net-slow-reader.sh checks the same behaviour from outside.
arguments=("$@")
[ ${#arguments[@]} -gt 0 ] || arguments=(--filter 'ParleyServerTests|ParleyStoreTests|ParleyKitTests' --skip 'SlowReaderTests')

# TSan makes every test several times slower. With all ~470 tests started at once on 2 cores, a
# test waits so long for the CPU that it passes a suite's time limit or PostgreSQL's connect
# timeout; 8 at a time keeps each one moving, and the run is faster for it (75 s against 98 s).
export SWT_EXPERIMENTAL_MAXIMUM_PARALLELIZATION_WIDTH="${SWT_EXPERIMENTAL_MAXIMUM_PARALLELIZATION_WIDTH:-8}"
# The tests' last-resort waits (for a frame, a state, a process) are sized for a normal run; under
# TSan and 8 at a time a step can take seconds, so they are stretched (docs/testing.md, rule 1).
export PARLEY_TEST_PATIENCE="${PARLEY_TEST_PATIENCE:-4}"

swift build --build-tests --sanitize=thread --scratch-path .build-tsan
set +e
swift test --skip-build --sanitize=thread --scratch-path .build-tsan "${arguments[@]}" 2>&1 | tee "$log"
status=${PIPESTATUS[0]}
set -e
reports=$(grep -c "WARNING: ThreadSanitizer" "$log" || true)
# A filter that matches nothing runs nothing and passes: a run must have run tests.
ran=$(grep -Eo "Test run with [0-9]+ tests?" "$log" | grep -Eo "[0-9]+" | tail -1 || true)
echo "ThreadSanitizer: runner exit status $status, ${ran:-0} test(s), $reports report(s)"
if [ "${ran:-0}" -eq 0 ]; then
    echo "no test ran under ThreadSanitizer: check the filter" >&2
    exit 1
fi
if [ "$status" -ne 0 ] || [ "$reports" -ne 0 ]; then
    grep "SUMMARY: ThreadSanitizer" "$log" | sort | uniq -c | sort -rn || true
    exit 1
fi
