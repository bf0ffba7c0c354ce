#!/bin/bash
# CI smoke of the load generator: builds parleyd and parley-load (release), starts parleyd on a free
# port with a fresh data directory, runs `parley-load --smoke` (2 pairs, 2 s) and stops the server.
# Fails only when messages are lost or duplicated, nothing is delivered, or something does not run;
# never on timing.
set -euo pipefail
cd "$(dirname "$0")/../.."
CONFIG=${CONFIG:-release}
SCRATCH=${SCRATCH:-.build-bench}   # SCRATCH=.build reuses the main build folder (then parleyd is not rebuilt from scratch)
swift build -c "$CONFIG" --product parleyd --scratch-path "$SCRATCH" 2>&1 | tail -1
swift build -c "$CONFIG" --package-path Benchmarks --product parley-load 2>&1 | tail -1
source scripts/bench/free-port-parleyd.sh
start_parleyd smoke
timeout 120 Benchmarks/.build/$CONFIG/parley-load --smoke --url "http://127.0.0.1:$PORT" --admin-token "$TOKEN" --server-pid $SP
