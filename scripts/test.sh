#!/usr/bin/env bash
# Every test: the Swift suites (server, store, SDK, CLI, durability), the concurrent ones again under
# ThreadSanitizer, the fuzz targets, the API contract (schemathesis against a live parleyd and its
# OpenAPI document, Tests/API), the fault scenarios, then the agent desk and the visitor chat page in
# headless Chromium. This is the README's test command and what CI runs; it fails when any part fails.
#
# On a fresh Debian machine it installs what the suites need first (scripts/install-test-deps.sh:
# PostgreSQL, Chromium and its driver, Python's venv, aiosmtpd, clamd; as root or with sudo, else it
# prints the command and stops), and the Python packages into .venv from PyPI. Without
# PARLEY_TEST_DATABASE_URL it starts a private PostgreSQL cluster for the run (scripts/test-postgres.sh)
# and stops it afterwards, so every store suite runs on both stores, as in CI.
# PARLEY_SKIP_BROWSER_TESTS=1 skips the browser suites, loudly; CI never sets it.
set -euo pipefail
cd "$(dirname "$0")/.."

bash scripts/install-test-deps.sh

if [ -z "${PARLEY_TEST_DATABASE_URL:-}" ]; then
    # A cluster already running on the port (another run's) is used, and left running.
    if ! bash scripts/test-postgres.sh status; then
        trap 'bash scripts/test-postgres.sh stop' EXIT
    fi
    PARLEY_TEST_DATABASE_URL="$(bash scripts/test-postgres.sh start)"
    export PARLEY_TEST_DATABASE_URL
fi

# A crash prints only the crashed thread's backtrace, not a hundred idle ones, so the end of a CI
# log shows where it happened (the "◇ … started" lines above it show which tests were running).
export SWIFT_BACKTRACE="${SWIFT_BACKTRACE:-enable=yes,threads=crashed,registers=none,images=none}"

# Swift tests that check Parley against Python packages from PyPI run them from .venv: the webhook
# tests' receiver (Tests/Webhooks/receiver.py) verifies every signature with standardwebhooks, the
# push encryption tests open and seal with http-ece (Tests/Push/ece.py), the push tests send to the
# APNs/FCM fake (Tests/Push/fake_providers.py: hypercorn, trustme, PyJWT).
if [ ! -x .venv/bin/python ]; then
    python3 -m venv .venv
fi
.venv/bin/pip install --quiet --disable-pip-version-check -r Tests/Webhooks/requirements.txt -r Tests/Push/requirements.txt

swift build --build-tests
# 8 tests at a time, as under ThreadSanitizer: with all ~630 started at once on 2 cores (each with
# its own server, and many with a child process), a test can wait so long for the CPU that it
# passes its suite's time limit; bounded, the run takes as long (156 s against 162 s for 16 at a
# time here) and none starves.
SWT_EXPERIMENTAL_MAXIMUM_PARALLELIZATION_WIDTH="${SWT_EXPERIMENTAL_MAXIMUM_PARALLELIZATION_WIDTH:-8}" swift test --skip-build

# The server, store and SDK suites again under ThreadSanitizer, on both stores: the longest step
# (a build of its own in .build-tsan, then about 6 minutes of tests on 2 cores); fails on any
# report, or if a race on purpose goes unseen.
bash scripts/tsan.sh

# The fuzz targets, 20 s each (a long run: scripts/fuzz.sh 3600 TARGET); their regressions replay first.
bash scripts/fuzz.sh "${PARLEY_FUZZ_SECONDS:-20}"

# About a minute and a half: three schemathesis passes (visitor, agent, admin routes), every phase.
bash Tests/API/run.sh

# Faults beyond kill -9 (docs/reliability.md): power cuts on a FUSE filesystem that drops what was
# not synced, packet loss and resets, a reader that stops, a server that stalls mid-frame, a node
# cut off from PostgreSQL. Short versions; they need root for namespaces, iptables and FUSE.
faults=(env PARLEY_BIN_DIR="$(swift build --show-bin-path)" bash scripts/faults/ci.sh)
if [ "$(id -u)" = 0 ]; then
    "${faults[@]}"
elif sudo -n true 2>/dev/null; then
    sudo "${faults[@]}"
else
    echo "!! the fault scenarios (scripts/faults/ci.sh) need root or password-less sudo: they did NOT run" >&2
fi

if [ "${PARLEY_SKIP_BROWSER_TESTS:-0}" = "1" ]; then
    echo "!! PARLEY_SKIP_BROWSER_TESTS=1: the agent desk's and the chat page's Chromium suites did NOT run" >&2
    exit 0
fi
bash Tests/Desk/run.sh
# About two minutes: every screen at two sizes with axe-core, the bridge, the outbox, the embed.
bash Tests/Chat/run.sh
