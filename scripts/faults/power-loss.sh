#!/usr/bin/env bash
# Power loss (R7): parleyd's data directory on powerfs, cut at random moments under load.
#   bash scripts/faults/power-loss.sh              # 100 cuts (a long run, ≈ 5 min)
#   bash scripts/faults/power-loss.sh --cuts 5     # the CI size
#   bash scripts/faults/power-loss.sh --self-test  # only prove powerfs drops what a cut drops
# Other options go to power_loss.py (--visitors, --agents, --model journal, --drop random, --seed …).
# Exits non-zero on any lost, duplicated or misordered message, gap, broken database or failed restart.
source "$(dirname "$0")/common.sh"
if [ "${1:-}" = "--self-test" ]; then
    shift
    "$PY" powerfs_selftest.py "$@"
    exit 0
fi
"$PY" power_loss.py --work "$FAULTS_WORK/power" "$@"
