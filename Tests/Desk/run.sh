#!/usr/bin/env bash
# The desk's browser suite: real parleyd + real `parley chat` + Debian's headless Chromium.
#
#   bash Tests/Desk/run.sh                 # builds nothing; uses `swift build --show-bin-path`
#   PARLEY_BIN_DIR=.build-desk/debug bash Tests/Desk/run.sh -k transfer   # extra args go to pytest
#   PARLEY_DESK_DIR=Sources/ParleyServer/Desk …   # parleyd serves the desk from disk (no rebuild)
#
# Exits non-zero when anything fails, including when Chromium or chromedriver is missing.
set -euo pipefail
cd "$(dirname "$0")/../.."

for tool in "${PARLEY_CHROMIUM:-/usr/bin/chromium}" "${PARLEY_CHROMEDRIVER:-/usr/bin/chromedriver}"; do
    if [ ! -x "$tool" ]; then
        echo "error: the desk suite needs $tool (apt-get install chromium chromium-driver)" >&2
        exit 2
    fi
done

if [ -z "${PARLEY_BIN_DIR:-}" ]; then
    PARLEY_BIN_DIR="$(swift build --show-bin-path)"
fi
export PARLEY_BIN_DIR
for binary in parleyd parley; do
    if [ ! -x "$PARLEY_BIN_DIR/$binary" ]; then
        echo "error: $PARLEY_BIN_DIR/$binary is missing; build it first: swift build --product $binary" >&2
        exit 2
    fi
done

if [ ! -x .venv/bin/python ]; then
    python3 -m venv .venv
fi
# Pinned versions: once installed, this is a quick local check (no index lookup).
.venv/bin/pip install --quiet --disable-pip-version-check -r Tests/Desk/requirements.txt

# Paths the suite gets from the environment must survive the cd below.
PARLEY_BIN_DIR="$(cd "$PARLEY_BIN_DIR" && pwd)"
if [ -n "${PARLEY_DESK_DIR:-}" ]; then
    export PARLEY_DESK_DIR="$(cd "$PARLEY_DESK_DIR" && pwd)"
fi
export PYTHONDONTWRITEBYTECODE=1
root="$(pwd)"
rm -rf .build/desk-artifacts
cd Tests/Desk
exec "$root/.venv/bin/python" -m pytest "$@"
