#!/usr/bin/env bash
# Opt-in end-to-end test of two-way sync (not part of CI): installs PostgreSQL from Debian's
# packages when it is missing, runs it on 127.0.0.1 in a temporary directory, builds and starts
# floe-sync-server, and runs 3 clients (separate processes, separate files) doing random writes
# with random disconnects. PostgreSQL is stopped for 2 s while they write. One client is killed with SIGKILL in the middle of a large upload and
# restarted; the server is killed and restarted while clients write. At the end every client's
# realm must equal the PostgreSQL tables object by object, and every write a client journaled
# after committing it must be in the server's change log (0 lost writes).
#
# Usage: Sync/Scripts/sync-test.sh [seconds of random writes per phase, default 15]
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-15}
pgport=${PGPORT:-54329}

pgbin=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -1 || true)
if [ -z "$pgbin" ]; then
    apt-get update && apt-get install -y postgresql
    pgbin=$(ls -d /usr/lib/postgresql/*/bin | sort -V | tail -1)
fi

work=$(mktemp -d)
chmod 755 "$work"
mkdir "$work/pg"
chown postgres "$work/pg"
as_postgres() { if [ "$(id -u)" = 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi; }
pids=()
server_pid=""
cleanup() {
    for pid in "${pids[@]}" $server_pid; do kill -9 "$pid" 2>/dev/null || true; done
    as_postgres "$pgbin/pg_ctl" -D "$work/pg/data" -m immediate stop >/dev/null 2>&1 || true
    if [ "${KEEP:-0}" = 1 ]; then echo "kept $work"; else rm -rf "$work"; fi
}
trap cleanup EXIT

as_postgres "$pgbin/initdb" -D "$work/pg/data" -A trust -U postgres >/dev/null
as_postgres "$pgbin/pg_ctl" -D "$work/pg/data" -l "$work/pg/log" -w \
    -o "-c listen_addresses=127.0.0.1 -p $pgport -k $work/pg -c fsync=on" start >/dev/null
echo "PostgreSQL on 127.0.0.1:$pgport"
psql_() { psql -h 127.0.0.1 -p "$pgport" -U postgres -At "$@"; }

swift build 2>&1 | tail -1
bin=$(swift build --show-bin-path)
"$bin/floe-sync-client" schema > "$work/schema.json"

: > "$work/server.log"
start_server() {
    "$bin/floe-sync-server" --schema "$work/schema.json" --port "${port:-0}" --pg-port "$pgport" >>"$work/server.log" 2>&1 &
    server_pid=$!
    for _ in $(seq 1 200); do
        found=$(sed -n 's|^listening on ws://127.0.0.1:\([0-9]*\)/sync$|\1|p' "$work/server.log" | tail -1)
        if [ -n "$found" ] && curl -fsS "http://127.0.0.1:$found/health" >/dev/null 2>&1; then port=$found; return 0; fi
        sleep 0.1
    done
    echo "FAIL the server did not start"; cat "$work/server.log"; exit 1
}
start_server
url="ws://127.0.0.1:$port/sync"
echo "server on $url"

client() {   # client NAME ARGS...: starts a client in the background, logging to $work/NAME.log
    local name=$1; shift
    "$bin/floe-sync-client" run --file "$work/$name.floe" --server "$url" --name "$name" "$@" >>"$work/$name.log" 2>&1 &
    pids+=($!)
    eval "pid_$name=$!"
}

# Phase 1: three clients write at random, with random disconnects; c2 starts with a large
# transaction and is killed with SIGKILL while uploading it.
client c1 --seconds "$seconds" --flaky
client c3 --seconds "$seconds" --flaky
client c2 --seconds "$seconds" --flaky --bulk 20000
for _ in $(seq 1 600); do grep -q '^bulk' "$work/c2.log" 2>/dev/null && break; sleep 0.05; done
sleep 0.3
kill -9 "$pid_c2"
echo "killed c2 (SIGKILL) during its upload"
# The server goes down for a moment while c1 and c3 go on writing offline.
sleep 2
kill -9 "$server_pid"; wait "$server_pid" 2>/dev/null || true
echo "killed the server (SIGKILL)"
sleep 1
start_server
echo "server back on $url"
client c2 --seconds "$((seconds / 2))" --flaky
# PostgreSQL goes down for a moment: uploads fail, nothing is half-applied, clients retry.
sleep 2
as_postgres "$pgbin/pg_ctl" -D "$work/pg/data" -m fast stop >/dev/null
echo "stopped PostgreSQL"
sleep 2
as_postgres "$pgbin/pg_ctl" -D "$work/pg/data" -l "$work/pg/log" -w \
    -o "-c listen_addresses=127.0.0.1 -p $pgport -k $work/pg -c fsync=on" start >/dev/null
echo "PostgreSQL back"
wait "${pids[@]}" 2>/dev/null || true
pids=()

# Phase 2: each client syncs until it has uploaded everything, then once more to download what
# the others uploaded last.
for round in 1 2; do
    for name in c1 c2 c3; do client "$name" --seconds 0; done
    for pid in "${pids[@]}"; do wait "$pid" || { echo "FAIL a client did not synchronize (round $round)"; for f in "$work"/c*.log; do tail -n 3 "$f"; done; exit 1; }; done
    pids=()
done
tail -n 2 "$work"/c1.log "$work"/c2.log "$work"/c3.log | grep synchronized || true

curl -fsS "http://127.0.0.1:$port/state" > "$work/postgres.json"
for name in c1 c2 c3; do "$bin/floe-sync-client" dump --file "$work/$name.floe" > "$work/$name.json"; done
psql_ -c "SELECT change->>'operation', class, key, change->'values'->'title'->>'string' FROM floe_log" > "$work/log.txt"
echo "PostgreSQL: $(psql_ -c 'SELECT count(*) FROM "Item"') items, $(psql_ -c 'SELECT count(*) FROM "Owner"') owners, $(psql_ -c 'SELECT count(*) FROM floe_log') logged changes, server version $(psql_ -c 'SELECT max(version) FROM floe_log')"

python3 - "$work" <<'PY'
import json, sys
work = sys.argv[1]
expected = json.load(open(f"{work}/postgres.json"))
failed = False
for name in ("c1", "c2", "c3"):
    got = json.load(open(f"{work}/{name}.json"))
    differences = 0
    for cls in sorted(set(expected) | set(got)):
        mine, theirs = got.get(cls, {}), expected.get(cls, {})
        for key in sorted(set(mine) | set(theirs)):
            if mine.get(key) != theirs.get(key):
                differences += 1
                if differences <= 5:
                    print(f"  {name} {cls} {key}: realm {mine.get(key)} != PostgreSQL {theirs.get(key)}")
    count = sum(len(objects) for objects in got.values())
    print(f"{name}: {count} objects, {differences} differ from PostgreSQL")
    failed |= differences > 0

# Every journaled write reached the server: inserts are always applied; an update is applied
# unless the object had been deleted (a delete wins), which the log shows.
log = [line.split("|") for line in open(f"{work}/log.txt").read().splitlines()]
titles = {row[3] for row in log if len(row) > 3 and row[3]}
deleted = {row[2] for row in log if row[0] == "delete"}
lost = 0
checked = 0
for name in ("c1", "c2", "c3"):
    for line in open(f"{work}/{name}.floe.journal"):
        kind, cls, key, title = line.split()
        checked += 1
        if title not in titles and not (kind == "update" and key in deleted):
            lost += 1
            if lost <= 5:
                print(f"  lost: {name} {line.strip()}")
print(f"journaled writes checked: {checked}, lost: {lost}")
failed |= lost > 0
sys.exit(1 if failed else 0)
PY
echo "sync end-to-end: all checks passed"
