#!/usr/bin/env bash
# Network faults (R6), in network namespaces made for the run: 30% packet loss each way plus a reset of every connection every 10 s, for 5 minutes (--minutes 1 in CI),
# while visitors send over HTTP and the realtime socket and desk agents answer (with --sdk, the real SDK too:
# `parley chat`, a line a second); counts lost, duplicated and misordered messages and the time to recover.
# Options go to net_faults.py (loss): see `python net_faults.py --help`. Exits non-zero on any loss,
# duplicate, misorder, delivery gap or a client that did not recover.
source "$(dirname "$0")/common.sh"
"$PY" net_faults.py loss "$@"
