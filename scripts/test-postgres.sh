#!/usr/bin/env bash
# A throwaway PostgreSQL 15 cluster for the tests: `start` prints the URL to export as
# PARLEY_TEST_DATABASE_URL (a cluster already running on the port is reused, never wiped);
# `stop` stops it and removes its files; `status` succeeds while it runs. initdb refuses root, so the cluster runs as the postgres
# user (Debian's postgresql package creates it).
set -euo pipefail
BIN=/usr/lib/postgresql/15/bin
PORT="${PARLEY_TEST_POSTGRES_PORT:-54329}"
STATE="${TMPDIR:-/tmp}/parley-test-postgres-$PORT"

run_as_postgres() {
    if [ "$(id -u)" = "0" ]; then su postgres -c "$1"; else bash -c "$1"; fi
}

case "${1:-}" in
start)
    # Someone else's run (another checkout, a benchmark) may be using this cluster: reuse it.
    if [ -f "$STATE/data/postmaster.pid" ] && run_as_postgres "$BIN/pg_ctl -D $STATE/data status" > /dev/null 2>&1; then
        echo "postgres://postgres@127.0.0.1:$PORT/postgres"
        exit 0
    fi
    rm -rf "$STATE" && mkdir -p "$STATE/data" "$STATE/socket"
    [ "$(id -u)" = "0" ] && chown -R postgres:postgres "$STATE"
    run_as_postgres "$BIN/initdb -D $STATE/data -U postgres --auth=trust -E UTF8" > "$STATE/initdb.log" 2>&1
    run_as_postgres "$BIN/pg_ctl -D $STATE/data -o '-p $PORT -k $STATE/socket -c listen_addresses=127.0.0.1 -c max_connections=600' -l $STATE/server.log -w start" > /dev/null
    echo "postgres://postgres@127.0.0.1:$PORT/postgres"
    ;;
status)
    [ -f "$STATE/data/postmaster.pid" ] && run_as_postgres "$BIN/pg_ctl -D $STATE/data status" > /dev/null 2>&1
    ;;
stop)
    if [ -d "$STATE/data" ]; then
        run_as_postgres "$BIN/pg_ctl -D $STATE/data -m fast stop" > /dev/null || true
    fi
    rm -rf "$STATE"
    ;;
*)
    echo "usage: $0 start|stop|status" >&2
    exit 64
    ;;
esac
