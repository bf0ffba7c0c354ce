#!/bin/bash
# ParleyKit's figures (issue 12): builds parleyd and client-bench (release), starts parleyd on a free
# port of 127.0.0.1 with a fresh data directory and an operator token, runs client-bench against it
# (start time, memory with a loaded history, bytes on the wire and on disk) and stops the server.
# Extra arguments go to client-bench, e.g. `scripts/bench/client.sh --runs 50`.
set -euo pipefail
cd "$(dirname "$0")/../.."
CONFIG=${CONFIG:-release}
SCRATCH=${SCRATCH:-.build-bench}   # SCRATCH=.build reuses the main build folder
swift build -c "$CONFIG" --product parleyd --scratch-path "$SCRATCH" 2>&1 | tail -1
swift build -c "$CONFIG" --package-path Benchmarks --product client-bench 2>&1 | tail -1
source scripts/bench/free-port-parleyd.sh
start_parleyd client-bench
echo "parleyd $(git rev-parse --short HEAD) on 127.0.0.1:$PORT, $(date -u +%Y-%m-%dT%H:%MZ)"
timeout 900 Benchmarks/.build/$CONFIG/client-bench --url "http://127.0.0.1:$PORT" --admin-token "$TOKEN" "$@"
