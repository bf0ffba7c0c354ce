#!/bin/bash
# A private ejabberd 23.01 (Debian) for the benchmarks: one Erlang VM started directly with `erl`
# (never the system service, never ejabberdctl), its config, Mnesia spool, SQLite database and log
# in a directory of its own; XMPP over WebSocket on one local port, every chat message archived
# (mod_mam, `default: always`) in SQLite, logging at warning level to a file.
#
#   scripts/bench/ejabberd.sh start DIR    # writes DIR/ejabberd.yml, starts ejabberd, prints its pid
#   scripts/bench/ejabberd.sh stop DIR     # stops it (SIGTERM, then SIGKILL after 10 s)
#   scripts/bench/ejabberd.sh check        # exit 0 if ejabberd and its SQLite driver are usable
#
# EJABBERD_PORT    HTTP/WebSocket port on 127.0.0.1 (18283); the endpoint is /xmpp-websocket
# EJABBERD_CPU     CPU to pin the server to with taskset (0; empty: no pinning)
# EJABBERD_JOURNAL SQLite journal mode of the database: wal (default, as parleyd and prosody.sh) or
#                  delete (SQLite's and so ejabberd's default). synchronous stays SQLite's default,
#                  FULL, in both: ejabberd 23.01 sets no PRAGMA but foreign_keys.
# EJABBERD_DOMAIN  the virtual host (bench.local)
# EJABBERD_MAM     1 (default): archive every message; 0 leaves mod_mam out, only to see what
#                  archiving costs (never for the side-by-side figures)
#
# The pid printed is the Erlang VM's (beam.smp: `erl` execs it), the one process that does all the
# work: every connection is a few Erlang processes inside it, and SQLite runs inside it (the
# p1_sqlite3 driver, on the VM's async thread). The VM runs without distribution (no node name),
# so no EPMD is started and nothing clashes with another Erlang node on this machine; ejabberdctl
# cannot reach it, which nothing here needs. Pinned, it has one scheduler (the CPU it is pinned
# to); its schedulers do not busy-wait when idle: a spinning scheduler would be counted as server
# CPU per message without doing any work.
#
# Accounts are made by the load generator through in-band registration (XEP-0077), open only on
# this private server (mod_register, registration_timeout: infinity so that one address may make
# many accounts); `parley-load --target ejabberd` registers what it needs before it measures.
set -euo pipefail
PORT=${EJABBERD_PORT:-18283}
CPU=${EJABBERD_CPU-0}
JOURNAL=${EJABBERD_JOURNAL:-wal}
DOMAIN=${EJABBERD_DOMAIN:-bench.local}
MAM=${EJABBERD_MAM:-1}
# Debian installs ejabberd's own applications here (ejabberdctl sets the same ERL_LIBS).
LIBS=/usr/lib/x86_64-linux-gnu

usable() {
  command -v erl >/dev/null && compgen -G "$LIBS/ejabberd-*/ebin/ejabberd.app" >/dev/null \
    && compgen -G "/usr/lib/erlang/lib/p1_sqlite3-*" >/dev/null && command -v python3 >/dev/null
}

case "${1:-}" in
check)
  usable
  ;;
start)
  DIR=${2:?usage: ejabberd.sh start DIR}
  if ! usable; then
    echo "ejabberd.sh: ejabberd with its SQLite driver is not installed: apt-get install ejabberd erlang-p1-sqlite3" >&2
    exit 2
  fi
  if curl -s -o /dev/null "http://127.0.0.1:$PORT/"; then
    echo "ejabberd.sh: port $PORT is in use already (EJABBERD_PORT chooses another)" >&2
    exit 1
  fi
  DIR=$(cd "$(dirname "$DIR")" && pwd)/$(basename "$DIR")   # absolute: the VM's paths must not depend on its cwd
  mkdir -p "$DIR/spool" "$DIR/log"
  DB=$DIR/ejabberd.db
  # ejabberd 23.01 makes its SQLite schema itself (sql/lite.sql) when the database has no table yet
  # (23.01 has no update_sql_schema; new_sql_schema stays false, the schema for a single host).
  # journal_mode=WAL is stored in the file, so a file made in WAL mode stays so when ejabberd opens
  # it; user_version is written only so that the file has a header to hold the mode.
  if [ "$JOURNAL" = wal ]; then
    python3 -c "import sqlite3, sys; c = sqlite3.connect(sys.argv[1]); c.execute('PRAGMA journal_mode=WAL'); c.execute('PRAGMA user_version=1'); c.close()" "$DB"
  fi
  ARCHIVE="
  mod_mam:
    db_type: sql
    default: always          # every chat message, both users' archives, whatever the user's prefs
    assume_mam_usage: false"
  [ "$MAM" = 0 ] && ARCHIVE=
  cat >"$DIR/ejabberd.yml" <<EOF
# Written by scripts/bench/ejabberd.sh for one benchmark run; not for production.
hosts:
  - $DOMAIN
loglevel: warning
hide_sensitive_log_data: true

# One listener: plain HTTP on loopback with the RFC 7395 WebSocket endpoint; no c2s (5222), no s2s,
# no TLS, like parleyd's benchmark port. TCP_NODELAY is ejabberd's default; the backlog (5 by
# default) is raised to parleyd's 256 so that hundreds of connects at once are not dropped.
listen:
  -
    port: $PORT
    ip: "127.0.0.1"
    module: ejabberd_http
    backlog: 256
    request_handlers:
      /xmpp-websocket: ejabberd_http_ws
s2s_access: none

# Everything in one SQLite file (accounts, rosters, the archive), as Prosody's storage = "sql".
default_db: sql
sql_type: sqlite
sql_database: "$DB"
new_sql_schema: false
auth_method: sql
# Passwords stored as given, so SASL PLAIN logins cost no PBKDF2 (ejabberd's SCRAM storage runs
# 4,096 iterations per login; Prosody is given 1, parleyd --password-cost 4): no message figure
# changes with it.
auth_password_format: plain

# In-band registration for the benchmark accounts, from any local address, without the default
# one-registration-per-address-per-10-minutes limit.
registration_timeout: infinity

modules:
  mod_register:
    access: all
    ip_access: all
  mod_stream_mgmt:
    resume_timeout: 300
    max_ack_queue: 5000
  mod_disco: {}
  mod_ping: {}
  mod_roster: {}$ARCHIVE
EOF
  rm -f "$DIR/ejabberd.pid"
  # Pinned: one scheduler (and one dirty CPU scheduler) for the one CPU. +sbwt none …: schedulers
  # sleep when they run out of work instead of spinning first.
  PIN=(); SCHEDULERS=(); [ -n "$CPU" ] && { PIN=(taskset -c "$CPU"); SCHEDULERS=(+S 1:1 +SDcpu 1:1); }
  # `erl` (a script) execs erlexec, which execs beam.smp: $! is the VM's pid.
  ( cd "$DIR" && exec env ERL_LIBS=$LIBS EJABBERD_CONFIG_PATH="$DIR/ejabberd.yml" EJABBERD_LOG_PATH="$DIR/log/ejabberd.log" \
      ERL_CRASH_DUMP="$DIR/log/erl_crash.dump" ERL_CRASH_DUMP_BYTES=0 \
      "${PIN[@]}" erl -noinput -noshell "${SCHEDULERS[@]}" +sbwt none +sbwtdcpu none +sbwtdio none \
      -mnesia dir "\"$DIR/spool\"" -s ejabberd >"$DIR/stdout.log" 2>&1 </dev/null ) &
  PID=$!
  echo $PID >"$DIR/ejabberd.pid"
  for _ in $(seq 300); do
    if ! kill -0 $PID 2>/dev/null; then
      cat "$DIR/stdout.log" "$DIR/log/ejabberd.log" >&2 2>/dev/null; echo "ejabberd.sh: ejabberd exited" >&2; exit 1
    fi
    if curl -s -o /dev/null "http://127.0.0.1:$PORT/xmpp-websocket"; then
      if [ "$(cat /proc/$PID/comm 2>/dev/null)" != beam.smp ]; then   # its CPU and RSS would not be ejabberd's
        echo "ejabberd.sh: pid $PID is $(cat /proc/$PID/comm 2>/dev/null), not beam.smp" >&2
        kill $PID 2>/dev/null || true
        exit 1
      fi
      echo $PID
      exit 0
    fi
    sleep 0.1
  done
  kill $PID 2>/dev/null || true
  echo "ejabberd.sh: ejabberd did not answer on port $PORT within 30 s" >&2
  cat "$DIR/log/ejabberd.log" >&2 2>/dev/null || true
  exit 1
  ;;
stop)
  DIR=${2:?usage: ejabberd.sh stop DIR}
  PID=$(cat "$DIR/ejabberd.pid" 2>/dev/null || true)
  [ -n "$PID" ] || exit 0
  kill "$PID" 2>/dev/null || exit 0   # SIGTERM: the VM stops its applications and exits
  for _ in $(seq 100); do kill -0 "$PID" 2>/dev/null || exit 0; sleep 0.1; done
  kill -9 "$PID" 2>/dev/null || true
  ;;
*)
  echo "usage: ejabberd.sh start DIR | stop DIR | check" >&2
  exit 2
  ;;
esac
