#!/usr/bin/env bash
# Network faults (R6), in network namespaces made for the run: agent sockets that stop reading while a firehose writes into what they follow: parleyd must
# drop them with bounded memory (RSS measured) while the other clients keep working.
# Options go to net_faults.py (slow-reader): see `python net_faults.py --help`. Exits non-zero on any loss,
# duplicate, misorder, delivery gap or a client that did not recover.
source "$(dirname "$0")/common.sh"
"$PY" net_faults.py slow-reader "$@"
