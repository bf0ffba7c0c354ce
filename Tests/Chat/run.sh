#!/usr/bin/env bash
# The chat page's browser suite: a real parleyd + Debian's headless Chromium, the agent over HTTP and
# a realtime socket, the host app's bridge replaced by a recorder.
#
#   bash Tests/Chat/run.sh                       # builds nothing; uses `swift build --show-bin-path`
#   PARLEY_BIN_DIR=.build-x/debug bash Tests/Chat/run.sh -k embed      # extra args go to pytest
#   PARLEY_CHAT_DIR=Sources/ParleyServer/Chat …  # parleyd serves the page from disk (no rebuild)
#   PARLEY_UPDATE_FIXTURES=1 …                   # rewrite the bridge fixtures from this run
#
# Exits non-zero when anything fails, including when Chromium or chromedriver is missing.
set -euo pipefail
cd "$(dirname "$0")/../.."

for tool in "${PARLEY_CHROMIUM:-/usr/bin/chromium}" "${PARLEY_CHROMEDRIVER:-/usr/bin/chromedriver}"; do
    if [ ! -x "$tool" ]; then
        echo "error: the chat suite needs $tool (apt-get install chromium chromium-driver)" >&2
        exit 2
    fi
done

if [ -z "${PARLEY_BIN_DIR:-}" ]; then
    PARLEY_BIN_DIR="$(swift build --show-bin-path)"
fi
if [ ! -x "$PARLEY_BIN_DIR/parleyd" ]; then
    echo "error: $PARLEY_BIN_DIR/parleyd is missing; build it first: swift build --product parleyd" >&2
    exit 2
fi

if [ ! -x .venv/bin/python ]; then
    python3 -m venv .venv
fi
# The desk's pins (selenium brings websocket-client, which the suite's agent uses).
.venv/bin/pip install --quiet --disable-pip-version-check -r Tests/Desk/requirements.txt

export PARLEY_BIN_DIR="$(cd "$PARLEY_BIN_DIR" && pwd)"
if [ -n "${PARLEY_CHAT_DIR:-}" ]; then
    export PARLEY_CHAT_DIR="$(cd "$PARLEY_CHAT_DIR" && pwd)"
fi
if [ -n "${PARLEY_DESK_DIR:-}" ]; then
    export PARLEY_DESK_DIR="$(cd "$PARLEY_DESK_DIR" && pwd)"   # the desk (Push a page) from disk too
fi
export PYTHONDONTWRITEBYTECODE=1
root="$(pwd)"
rm -rf .build/chat-artifacts .build/chat-screenshots
cd Tests/Chat
exec "$root/.venv/bin/python" -m pytest "$@"
