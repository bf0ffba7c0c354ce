#!/usr/bin/env bash
# Network faults (R6), in network namespaces made for the run: two parleyd nodes on PostgreSQL, node 1 cut off from the database (link down) while its clients
# still reach it: every acknowledged message is there exactly once after the heal, node 1 stops acknowledging.
# Options go to net_faults.py (partition): see `python net_faults.py --help`. Exits non-zero on any loss,
# duplicate, misorder, delivery gap or a client that did not recover.
source "$(dirname "$0")/common.sh"
"$PY" net_faults.py partition "$@"
