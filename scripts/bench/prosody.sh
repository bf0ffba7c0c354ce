#!/bin/bash
# A private Prosody 0.12 for the benchmarks: a normal process in a directory of its own (never the
# system service), XMPP over WebSocket on one local port, every chat message archived (mod_mam) in
# SQLite through LuaDBI, logging at warn level to a file.
#
#   scripts/bench/prosody.sh start DIR     # writes DIR/prosody.cfg.lua, starts Prosody, prints its pid
#   scripts/bench/prosody.sh stop DIR      # stops it (SIGTERM, then SIGKILL after 10 s)
#   scripts/bench/prosody.sh check         # exit 0 if prosody and lua-dbi-sqlite3 are usable
#
# PROSODY_PORT   HTTP/WebSocket port on 127.0.0.1 (18282); the endpoint is /xmpp-websocket
# PROSODY_CPU    CPU to pin the server to with taskset (0; empty: no pinning)
# PROSODY_JOURNAL  SQLite journal mode of the archive database: wal (default, as parleyd) or delete
#                (SQLite's and so Prosody's default). synchronous stays SQLite's default, FULL, in
#                both: Prosody 0.12 sets no PRAGMA of its own.
# PROSODY_DOMAIN the virtual host (bench.local)
# PROSODY_MAM    1 (default): archive every message; 0 leaves mod_mam out, only to see what archiving
#                costs (never for the side-by-side figures)
#
# Accounts are made by the load generator through in-band registration (XEP-0077), open only on this
# private server; `parley-load --target prosody` registers what it needs before it measures anything.
set -euo pipefail
PORT=${PROSODY_PORT:-18282}
CPU=${PROSODY_CPU-0}
JOURNAL=${PROSODY_JOURNAL:-wal}
DOMAIN=${PROSODY_DOMAIN:-bench.local}
MAM=${PROSODY_MAM:-1}

usable() {
  command -v prosody >/dev/null && lua5.4 -e 'assert(require("DBI").Connect("SQLite3", ":memory:"))' 2>/dev/null
}

case "${1:-}" in
check)
  usable
  ;;
start)
  DIR=${2:?usage: prosody.sh start DIR}
  if ! usable; then
    echo "prosody.sh: Prosody with LuaDBI's SQLite driver is not installed: apt-get install prosody lua-dbi-sqlite3" >&2
    exit 2
  fi
  if curl -s -o /dev/null "http://127.0.0.1:$PORT/"; then
    echo "prosody.sh: port $PORT is in use already (PROSODY_PORT chooses another)" >&2
    exit 1
  fi
  mkdir -p "$DIR/data" "$DIR/certs"
  # Parley's store is WAL + synchronous=FULL. journal_mode=WAL is stored in the database file, so a
  # file made in WAL mode stays in WAL mode when Prosody opens it; synchronous is per connection and
  # SQLite's compiled default here (DEFAULT_SYNCHRONOUS=2, FULL) applies, as Prosody sets none.
  if [ "$JOURNAL" = wal ]; then
    # (user_version is written only so that the file has a header to hold the mode.)
    lua5.4 -e "local c = assert(require('DBI').Connect('SQLite3', '$DIR/data/prosody.sqlite')); c:autocommit(true)
               for _, q in ipairs{'PRAGMA journal_mode=WAL', 'PRAGMA user_version=1'} do assert(c:prepare(q)):execute() end
               c:close()"
  fi
  ARCHIVE='"mam", '; [ "$MAM" = 0 ] && ARCHIVE=
  cat >"$DIR/prosody.cfg.lua" <<EOF
-- Written by scripts/bench/prosody.sh for one benchmark run; not for production.
run_as_root = true                 -- only so that the script also works as root; no privileges are used
pidfile = "$DIR/prosody.pid"
data_path = "$DIR/data"
log = { warn = "$DIR/prosody.log" }
plugin_paths = {}
certificates = "$DIR/certs"      -- none: no TLS on this private port

modules_enabled = { "saslauth", "roster", "disco", "ping", "register", "smacks", ${ARCHIVE}"http", "websocket" }
modules_disabled = { "s2s", "s2s_auth_certs" }   -- one host, no federation
c2s_ports = {}                     -- no plain XMPP listener: WebSocket only
http_ports = { $PORT }
http_interfaces = { "127.0.0.1" }
https_ports = {}
http_default_host = "$DOMAIN"
consider_websocket_secure = true   -- plain ws on loopback, like parleyd's benchmark port
-- The transport as parleyd's (SwiftNIO, Hummingbird defaults): TCP_NODELAY and a listen backlog of
-- 256. Prosody's defaults (Nagle on, backlog 128) add up to 40 ms per exchange (Nagle against the
-- client's delayed ACK) and drop SYNs when hundreds connect at once.
network_settings = { nagle = false; tcp_backlog = 256 }

-- Every chat message archived, in SQLite, kept.
storage = "sql"
sql = { driver = "SQLite3", database = "prosody.sqlite" }
default_archive_policy = true
archive_expires_after = "never"

-- Accounts for the benchmark come from in-band registration; 127.0.0.1 is exempt from the throttle.
allow_registration = true
authentication = "internal_hashed"
-- PBKDF2 iterations for the stored SCRAM hash, which SASL PLAIN recomputes at every login. One
-- iteration keeps logins as cheap as parleyd's benchmark logins (--password-cost 4) and its visitor
-- tokens; it changes no message figure.
default_iteration_count = 1

VirtualHost "$DOMAIN"
EOF
  rm -f "$DIR/prosody.pid"
  PIN=(); [ -n "$CPU" ] && PIN=(taskset -c "$CPU")
  "${PIN[@]}" prosody --config "$DIR/prosody.cfg.lua" -F >"$DIR/stdout.log" 2>&1 </dev/null &
  PID=$!
  for _ in $(seq 100); do
    if ! kill -0 $PID 2>/dev/null; then cat "$DIR/stdout.log" "$DIR/prosody.log" >&2 2>/dev/null; echo "prosody.sh: prosody exited" >&2; exit 1; fi
    curl -s -o /dev/null "http://127.0.0.1:$PORT/xmpp-websocket" && { echo $PID; exit 0; }
    sleep 0.1
  done
  kill $PID 2>/dev/null || true
  echo "prosody.sh: prosody did not answer on port $PORT within 10 s" >&2
  exit 1
  ;;
stop)
  DIR=${2:?usage: prosody.sh stop DIR}
  PID=$(cat "$DIR/prosody.pid" 2>/dev/null || true)
  [ -n "$PID" ] || exit 0
  kill "$PID" 2>/dev/null || exit 0
  for _ in $(seq 100); do kill -0 "$PID" 2>/dev/null || exit 0; sleep 0.1; done
  kill -9 "$PID" 2>/dev/null || true
  ;;
*)
  echo "usage: prosody.sh start DIR | stop DIR | check" >&2
  exit 2
  ;;
esac
