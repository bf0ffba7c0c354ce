#!/usr/bin/env bash
# The API contract suite: schemathesis against a real parleyd and the OpenAPI document it serves
# (Sources/ParleyServer/OpenAPI/openapi.json), as a visitor, an agent and the operator, with a second
# visitor and an agent of another app as peers for object-level authorization.
#
#   bash Tests/API/run.sh                 # builds nothing; uses `swift build --show-bin-path`
#   PARLEY_BIN_DIR=.build/release bash Tests/API/run.sh --max-examples 50   # extra args go to schemathesis
#   PARLEY_API_SEED=1234 …                # another seed (default: a fixed one, so a run can be repeated)
#
# Exits non-zero on any server error, any answer the document does not describe (status, content
# type, body schema), or one visitor or app reading another's object.
set -euo pipefail
cd "$(dirname "$0")/../.."

if [ -z "${PARLEY_BIN_DIR:-}" ]; then
    PARLEY_BIN_DIR="$(swift build --show-bin-path)"
fi
if [ ! -x "$PARLEY_BIN_DIR/parleyd" ]; then
    echo "error: $PARLEY_BIN_DIR/parleyd is missing; build it first: swift build --product parleyd" >&2
    exit 2
fi
export PARLEY_BIN_DIR="$(cd "$PARLEY_BIN_DIR" && pwd)"

if [ ! -x .venv/bin/python ]; then
    python3 -m venv .venv
fi
# Pinned versions: once installed, this is a quick local check (no index lookup).
.venv/bin/pip install --quiet --disable-pip-version-check -r Tests/API/requirements.txt

export PYTHONDONTWRITEBYTECODE=1
exec .venv/bin/python Tests/API/contract.py "$@"
