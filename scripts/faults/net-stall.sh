#!/usr/bin/env bash
# Network faults (R6), in network namespaces made for the run: the proxy stops forwarding in the middle of a server frame (black hole, or half-open): clients
# must time out, reconnect and resume; --sdk also runs the real SDK (parley chat) behind it.
# Options go to net_faults.py (stall): see `python net_faults.py --help`. Exits non-zero on any loss,
# duplicate, misorder, delivery gap or a client that did not recover.
source "$(dirname "$0")/common.sh"
"$PY" net_faults.py stall "$@"
