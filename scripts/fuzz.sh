#!/usr/bin/env bash
# The libFuzzer targets of Fuzz/ (AddressSanitizer and libFuzzer), each run for a while on a copy of
# its seed corpus. Fuzz/README.md says what each target checks.
#
#   scripts/fuzz.sh [seconds-per-target] [target…]
#
# Defaults: 60 seconds, every target. CI runs `scripts/fuzz.sh 20` (about two and a half minutes
# after the build). For each target, the inputs kept in Fuzz/Regressions/<target>/ are replayed
# first, then the fuzzer runs on Fuzz/.build/fuzz-corpus/<target>/, a fresh copy of
# Fuzz/Corpus/<target>/ (the committed seeds do not grow). A crash, a leak, a timeout (10 s for one
# input) or a memory blow-up (2 GB) leaves its input in Fuzz/Crashes/<target>/ and the log in
# Fuzz/.build/fuzz-logs/<target>.log. Every target runs even when one fails; the script exits 1 if
# any replay or run failed (judged by exit status, not by reading the output).
#
# FUZZ_CONFIGURATION=release builds with optimisation (about four times the build time; faster
# only where Parley's own code dominates, such as file-type and masking-rules).
set -euo pipefail
cd "$(dirname "$0")/.."

all_targets=(client-frame form-rules timestamp masking masking-rules file-type tokens)
seconds="${1:-60}"
shift || true
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=("${all_targets[@]}")
case "$seconds" in
    '' | *[!0-9]*) echo "usage: scripts/fuzz.sh [seconds-per-target] [target…]" >&2; exit 2 ;;
esac
for target in "${targets[@]}"; do
    [[ " ${all_targets[*]} " == *" $target "* ]] || { echo "unknown target $target (known: ${all_targets[*]})" >&2; exit 2; }
done

# The longest input each target is given: enough for what it parses, small enough to stay fast.
max_len() {
    case "$1" in
        client-frame) echo 4096 ;;  # a frame's grammar; the 256 KiB frame limit adds nothing to explore
        form-rules) echo 1024 ;;    # a few fields and their answers
        timestamp) echo 64 ;;       # the longest ISO 8601 form is 35 bytes
        masking) echo 2048 ;;       # a message's numbers; the detectors are linear in the text
        masking-rules) echo 1024 ;; # a pattern (at most 512 bytes), a replacement, a text
        file-type) echo 1024 ;;     # two choice bytes and the 512 bytes sniff reads, and more
        tokens) echo 1024 ;;        # a token, or claims to sign and a place to tamper with
    esac
}

configuration="${FUZZ_CONFIGURATION:-debug}"
# `--sanitize=fuzzer` makes SwiftPM link libFuzzer's `main` (the targets have none); its separate
# `--sanitize=address` would replace the fuzzer's coverage flag when compiling (the last
# `-sanitize=` wins), so both are given to swiftc as one flag. lld, because gold warns about every
# ASan symbol it cannot export.
build=(swift build --package-path Fuzz --scratch-path Fuzz/.build -c "$configuration"
       --sanitize=fuzzer -Xswiftc -sanitize=fuzzer,address -Xswiftc -use-ld=lld)
start=$(date +%s)
"${build[@]}"
echo "fuzz: built in $(( $(date +%s) - start )) s"
bin="Fuzz/.build/$configuration"

# libFuzzer, not Swift's backtracer, handles a crash: it writes the input and exits promptly.
export SWIFT_BACKTRACE=enable=no

failures=()
for target in "${targets[@]}"; do
    crashes="Fuzz/Crashes/$target"
    corpus="Fuzz/.build/fuzz-corpus/$target"
    log="Fuzz/.build/fuzz-logs/$target.log"
    mkdir -p "$crashes" "$(dirname "$log")"

    # Every kept crash input must pass before fuzzing (each file alone, so each failure is named).
    if [ -d "Fuzz/Regressions/$target" ]; then
        for input in "Fuzz/Regressions/$target"/*; do
            [ -f "$input" ] || continue
            if "$bin/$target" "$input" > "$log" 2>&1; then
                echo "fuzz: $target: replayed $input"
            else
                echo "fuzz: $target: REGRESSION $input fails (exit $?):"
                grep -E "Fatal error|ERROR: |SUMMARY" "$log" | head -5 || true
                failures+=("$target regression $input")
            fi
        done
    fi

    rm -rf "$corpus"
    mkdir -p "$corpus"
    cp Fuzz/Corpus/"$target"/* "$corpus"/
    # The outer timeout only catches a fuzzer that does not stop by itself.
    set +e
    timeout --kill-after=30 $(( seconds + 120 )) "$bin/$target" "$corpus" \
        -max_total_time="$seconds" -max_len="$(max_len "$target")" -timeout=10 -rss_limit_mb=2048 \
        -dict="Fuzz/Dictionaries/$target.dict" -artifact_prefix="$crashes/" -print_final_stats=1 > "$log" 2>&1
    status=$?
    set -e
    summary=$(grep -E "^#[0-9]+[[:space:]]+DONE" "$log" | tail -1 | sed -E 's/^#([0-9]+)[[:space:]]+DONE[[:space:]]+/\1 runs, /' || true)
    if [ "$status" -eq 0 ]; then
        echo "fuzz: $target: ok, $summary"
    else
        echo "fuzz: $target: FAILED (exit $status); input in $crashes/, log $log:"
        grep -E "Fatal error|ERROR: |SUMMARY|Test unit written" "$log" | head -8 || true
        failures+=("$target")
    fi
done

if [ ${#failures[@]} -gt 0 ]; then
    echo "fuzz: failed: ${failures[*]}"
    exit 1
fi
echo "fuzz: every target passed"
