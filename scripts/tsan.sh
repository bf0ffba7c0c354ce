#!/usr/bin/env bash
# The Swift suites under ThreadSanitizer, in a build folder of their own (.build-tsan; the first
# build takes 10 to 25 minutes on 2 cores). Extra arguments go to `swift test` (for instance
# `--filter ParleyStoreTests`). Fails when the runner fails or when TSan reports anything: the
# runner can print success and still exit 1 after a report, and a report printed with exit 0 is
# caught by counting them. Known reports of dependencies that TSan cannot see the ordering of are
# suppressed, each with its reason, in scripts/tsan-suppressions.txt.
#
# With PARLEY_TEST_DATABASE_URL set (scripts/test-postgres.sh start), the stores run on PostgreSQL too.
set -euo pipefail
cd "$(dirname "$0")/.."

swift build --build-tests --sanitize=thread --scratch-path .build-tsan
export TSAN_OPTIONS="suppressions=$PWD/scripts/tsan-suppressions.txt halt_on_error=0 second_deadlock_stack=1 ${TSAN_OPTIONS:-}"
log="$(mktemp)"
trap 'rm -f "$log"' EXIT
set +e
swift test --skip-build --sanitize=thread --scratch-path .build-tsan "$@" 2>&1 | tee "$log"
status=${PIPESTATUS[0]}
set -e
reports=$(grep -c "WARNING: ThreadSanitizer" "$log" || true)
echo "ThreadSanitizer: runner exit status $status, $reports report(s)"
if [ "$status" -ne 0 ] || [ "$reports" -ne 0 ]; then
    grep "SUMMARY: ThreadSanitizer" "$log" | sort | uniq -c | sort -rn || true
    exit 1
fi
