# Sourced by the fault scripts: checks what they need, prepares scripts/faults/.venv, finds the
# binaries, and arms the clean-up trap. Not run on its own.
set -euo pipefail
FAULTS_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
REPO_ROOT="$(cd "$FAULTS_DIR/../.." && pwd)"

if [ "$(id -u)" != "0" ]; then
    echo "error: the fault harnesses need root (network namespaces, iptables, FUSE mounts)" >&2
    exit 2
fi
missing=()
for tool in ip iptables fusermount3 python3; do
    command -v "$tool" >/dev/null 2>&1 || missing+=("$tool")
done
[ -e /dev/fuse ] || missing+=("/dev/fuse")
if [ ${#missing[@]} -gt 0 ]; then
    echo "error: missing ${missing[*]}; install with: apt-get install -y iproute2 iptables fuse3 libfuse3-3 python3-venv" >&2
    exit 2
fi

if [ -z "${PARLEY_BIN_DIR:-}" ]; then
    PARLEY_BIN_DIR="$(cd "$REPO_ROOT" && swift build --show-bin-path)"
fi
PARLEY_BIN_DIR="$(cd "$PARLEY_BIN_DIR" && pwd)"
export PARLEY_BIN_DIR
if [ ! -x "$PARLEY_BIN_DIR/parleyd" ]; then
    echo "error: $PARLEY_BIN_DIR/parleyd is missing; build it first: swift build --product parleyd" >&2
    exit 2
fi

if [ ! -x "$FAULTS_DIR/.venv/bin/python" ]; then
    python3 -m venv "$FAULTS_DIR/.venv"
fi
# Pinned versions: once installed, this is a quick local check.
"$FAULTS_DIR/.venv/bin/pip" install --quiet --disable-pip-version-check -r "$FAULTS_DIR/requirements.txt"
PY="$FAULTS_DIR/.venv/bin/python"
export PYTHONDONTWRITEBYTECODE=1 PYTHONUNBUFFERED=1

# Everything a run makes is named after it: namespaces "$FAULTS_RUN-*", mounts under $FAULTS_WORK.
export FAULTS_RUN="pf$$"
FAULTS_WORK="$(mktemp -d /tmp/parley-faults-XXXXXX)"
chmod 755 "$FAULTS_WORK"    # the partition's PostgreSQL runs as the postgres user inside it
export FAULTS_WORK
faults_cleanup() {
    local status=$?
    set +e +o pipefail      # clean-up never changes the verdict
    "$PY" "$FAULTS_DIR/netlab.py" cleanup "$FAULTS_RUN" 2>/dev/null || true
    # FUSE mounts a killed harness left behind (powerfs), then the processes it recorded.
    if [ -f "$FAULTS_WORK/pids" ]; then
        while read -r pid; do kill -9 "$pid" 2>/dev/null || true; done < "$FAULTS_WORK/pids"
    fi
    grep -o " $FAULTS_WORK/[^ ]*" /proc/mounts 2>/dev/null | while read -r m; do fusermount3 -uz "$m" 2>/dev/null; done
    if [ "$status" = "0" ] && [ -z "${FAULTS_KEEP:-}" ]; then rm -rf "$FAULTS_WORK"; fi
    exit "$status"
}
trap faults_cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
cd "$FAULTS_DIR"
