#!/usr/bin/env bash
# Sync figures (release build, PostgreSQL on loopback in a temporary directory), each run
# RUNS times on a fresh database: upload throughput (objects/s into PostgreSQL), latency from
# a commit on one client to the change in another client's realm, and catch-up speed of a new
# client over a log of CHANGES changes (the log is filled by SQL, in server versions of 100
# inserts each, as uploads would have left it).
#
# Usage: Sync/Scripts/sync-bench.sh   (env: RUNS=3 OBJECTS=20000 SAMPLES=300 CHANGES=1000000)
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${RUNS:-3}
objects=${OBJECTS:-20000}
samples=${SAMPLES:-300}
changes=${CHANGES:-1000000}
pgport=${PGPORT:-54339}
pgbin=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -1 || true)
[ -n "$pgbin" ] || { apt-get update && apt-get install -y postgresql; pgbin=$(ls -d /usr/lib/postgresql/*/bin | sort -V | tail -1); }

work=$(mktemp -d)
chmod 755 "$work"
mkdir "$work/pg"
chown postgres "$work/pg"
as_postgres() { if [ "$(id -u)" = 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi; }
server_pid=""
cleanup() {
    [ -n "$server_pid" ] && kill -9 "$server_pid" 2>/dev/null || true
    as_postgres "$pgbin/pg_ctl" -D "$work/pg/data" -m immediate stop >/dev/null 2>&1 || true
    rm -rf "$work"
}
trap cleanup EXIT
as_postgres "$pgbin/initdb" -D "$work/pg/data" -A trust -U postgres >/dev/null
as_postgres "$pgbin/pg_ctl" -D "$work/pg/data" -l "$work/pg/log" -w -o "-c listen_addresses=127.0.0.1 -p $pgport -k $work/pg" start >/dev/null
psql_() { psql -h 127.0.0.1 -p "$pgport" -U postgres -At -q "$@"; }

swift build -c release 2>&1 | tail -1
bin=$(swift build -c release --show-bin-path)
"$bin/floe-sync-client" schema > "$work/schema.json"

fresh() {   # an empty database and a new server
    [ -n "$server_pid" ] && { kill "$server_pid"; wait "$server_pid" 2>/dev/null || true; }
    psql_ -c 'DROP TABLE IF EXISTS "Item", "Owner", floe_log, floe_clients; DROP SEQUENCE IF EXISTS floe_server_version'
    rm -f "$work"/*.floe
    : > "$work/server.log"
    "$bin/floe-sync-server" --schema "$work/schema.json" --port 0 --pg-port "$pgport" >"$work/server.log" 2>&1 &
    server_pid=$!
    for _ in $(seq 1 200); do
        port=$(sed -n 's|^listening on ws://127.0.0.1:\([0-9]*\)/sync$|\1|p' "$work/server.log")
        [ -n "$port" ] && curl -fsS "http://127.0.0.1:$port/health" >/dev/null 2>&1 && return 0
        sleep 0.1
    done
    echo "the server did not start"; cat "$work/server.log"; exit 1
}

fill_log() {   # $1 changes in the log and the tables, 100 per server version
    psql_ <<SQL
INSERT INTO "Item" (id, title, count, done, score, tags, owner)
    SELECT g, 'item ' || g, g, false, g / 3.0, '{"list":[{"string":"a"}]}'::jsonb, NULL FROM generate_series(1, $1) g;
INSERT INTO floe_log (version, seq, class, key, change)
    SELECT (g - 1) / 100 + 1, (g - 1) % 100, 'Item', g::text, jsonb_build_object('className', 'Item', 'key', jsonb_build_object('int', g),
        'operation', 'insert', 'values', jsonb_build_object('id', jsonb_build_object('int', g), 'title', jsonb_build_object('string', 'item ' || g),
        'count', jsonb_build_object('int', g), 'done', jsonb_build_object('bool', false), 'score', jsonb_build_object('double', g / 3.0),
        'tags', '{"list":[{"string":"a"}]}'::jsonb, 'owner', 'null'::jsonb))
    FROM generate_series(1, $1) g;
SELECT setval('floe_server_version', ($1 - 1) / 100 + 1);
SQL
}

for run in $(seq 1 "$runs"); do
    fresh
    "$bin/floe-sync-client" bench-upload --file "$work/upload.floe" --server "ws://127.0.0.1:$port/sync" --objects "$objects"
    fresh
    "$bin/floe-sync-client" bench-latency --dir "$work" --server "ws://127.0.0.1:$port/sync" --samples "$samples"
    fresh
    fill_log "$changes"
    # The server learns the newest version on start: restart it over the filled log.
    kill "$server_pid"; wait "$server_pid" 2>/dev/null || true
    "$bin/floe-sync-server" --schema "$work/schema.json" --port "$port" --pg-port "$pgport" >"$work/server.log" 2>&1 &
    server_pid=$!
    for _ in $(seq 1 200); do curl -fsS "http://127.0.0.1:$port/health" >/dev/null 2>&1 && break; sleep 0.1; done
    "$bin/floe-sync-client" bench-catchup --file "$work/catchup.floe" --server "ws://127.0.0.1:$port/sync" --changes "$changes"
done
