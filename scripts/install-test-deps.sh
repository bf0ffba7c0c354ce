#!/usr/bin/env bash
# What the test suites need from Debian on a fresh machine: SQLite's headers; PostgreSQL 15 (the
# store conformance suite runs on both stores); Chromium, its driver and Python's venv for the
# browser suites and the API contract (their Python packages come from PyPI into .venv); emoji
# fonts for the chat page's screenshots; aiosmtpd, the SMTP server the transcript email tests send
# to; clamav-daemon, the malware scanner the attachment tests start with a signature database of
# their own. Installs what is missing when it may (as root, or with sudo without a password);
# otherwise prints the one command that does and fails. Installs nothing when all is there.
set -euo pipefail

packages=(libsqlite3-dev postgresql-15 chromium chromium-driver fonts-noto-color-emoji python3-venv python3-pip python3-aiosmtpd fuse3 libfuse3-3 iptables)
missing=()
for package in "${packages[@]}"; do
    dpkg -s "$package" >/dev/null 2>&1 || missing+=("$package")
done
# Without recommends: the daemon only (the tests give it their own database; nothing downloads one).
missing_clamd=()
dpkg -s clamav-daemon >/dev/null 2>&1 || missing_clamd+=(clamav-daemon)

if [ ${#missing[@]} -eq 0 ] && [ ${#missing_clamd[@]} -eq 0 ]; then
    exit 0
fi

if [ "$(id -u)" = "0" ]; then
    as_root=()
elif command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then
    as_root=(sudo -n)
else
    echo "error: the tests need Debian packages that are not installed; run as root:" >&2
    [ ${#missing[@]} -gt 0 ] && echo "  apt-get update && apt-get install -y ${missing[*]}" >&2
    [ ${#missing_clamd[@]} -gt 0 ] && echo "  apt-get install -y --no-install-recommends clamav-daemon" >&2
    exit 1
fi

export DEBIAN_FRONTEND=noninteractive
"${as_root[@]}" apt-get update -qq
[ ${#missing[@]} -gt 0 ] && "${as_root[@]}" apt-get install -y -qq "${missing[@]}"
[ ${#missing_clamd[@]} -gt 0 ] && "${as_root[@]}" apt-get install -y -qq --no-install-recommends clamav-daemon
exit 0
