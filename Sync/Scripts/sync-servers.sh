#!/usr/bin/env bash
# Opt-in test of several servers on one PostgreSQL (not part of CI), with PostgreSQL like
# sync-test.sh: two floe-sync-server processes share a database; a client on one commits and a
# client on the other must receive each change (each server follows the others' commits with
# LISTEN floe_log), in both directions, timed (commit → the other device, through two servers);
# then every server's LISTEN connection is cut (pg_terminate_backend) and the changes must still
# arrive once the servers listen again. Last, two clients write at random (with random
# disconnects) through one server each, then each moves to the other server and writes on: at
# the end both realms equal the PostgreSQL tables object by object, and every write either
# client journaled after its commit is in the log (nothing lost in the move).
#
# Usage: Sync/Scripts/sync-servers.sh [samples, default 100]   (env: CONFIG=debug|release)
set -euo pipefail
cd "$(dirname "$0")/.."
samples=${1:-100}
config=${CONFIG:-debug}
pgport=${PGPORT:-54341}

source Scripts/postgres.sh   # (the working directory is Sync/)
servers=()
on_exit+=('for pid in "${servers[@]}"; do kill -9 "$pid" 2>/dev/null || true; done')

swift build -c "$config" 2>&1 | tail -1
bin=$(swift build -c "$config" --show-bin-path)
"$bin/floe-sync-client" schema > "$work/schema.json"

start_server() {   # start_server N: server N, its port in port_N
    "$bin/floe-sync-server" --schema "$work/schema.json" --insecure-no-auth --debug-state --port 0 --pg-port "$pgport" >"$work/server$1.log" 2>&1 &
    servers+=($!)
    for _ in $(seq 1 300); do
        found=$(sed -n 's|^listening on ws://127.0.0.1:\([0-9]*\)/sync$|\1|p' "$work/server$1.log")
        if [ -n "$found" ] && curl -fsS "http://127.0.0.1:$found/health" >/dev/null 2>&1; then eval "port_$1=$found"; return 0; fi
        sleep 0.1
    done
    echo "✘ server $1 did not start"; cat "$work/server$1.log"; exit 1
}
start_server 1
start_server 2
failures=0
latency() {   # latency NAME FROM TO SAMPLES
    rm -f "$work"/latency-*.floe*
    if out=$(timeout 300 "$bin/floe-sync-client" bench-latency --dir "$work" --server "ws://127.0.0.1:$2/sync" --server-b "ws://127.0.0.1:$3/sync" --samples "$4"); then
        echo "✔ $1: every change arrived; $out"
    else
        echo "✘ $1: changes did not arrive (or the client failed)"; failures=$((failures + 1))
    fi
}
latency "server 1 → server 2" "$port_1" "$port_2" "$samples"
latency "server 2 → server 1" "$port_2" "$port_1" "$samples"
latency "one server (for comparison)" "$port_1" "$port_1" "$samples"

# Cut every LISTEN connection: each server listens again within a second and catches up.
cut=$(psql_ -c "SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity WHERE query ILIKE 'LISTEN%'")
echo "cut $cut listening connections"
sleep 2
latency "server 1 → server 2 after the cut" "$port_1" "$port_2" 20

# Clients that move between servers: random writes through one, then through the other.
client() {   # client NAME PORT SECONDS: random writes, then synchronized
    "$bin/floe-sync-client" run --file "$work/$1.floe" --server "ws://127.0.0.1:$2/sync" --name "$1" --seconds "$3" --flaky >>"$work/$1.log" 2>&1
}
moved=1
client c1 "$port_1" 4 & first=$!
client c2 "$port_2" 4 & second=$!
wait "$first" && wait "$second" || moved=0
client c1 "$port_2" 4 & first=$!
client c2 "$port_1" 4 & second=$!
wait "$first" && wait "$second" || moved=0
for round in 1 2; do client c1 "$port_2" 0 || moved=0; client c2 "$port_1" 0 || moved=0; done
curl -fsS "http://127.0.0.1:$port_1/state" > "$work/postgres.json"
for name in c1 c2; do "$bin/floe-sync-client" dump --file "$work/$name.floe" > "$work/$name.json"; done
psql_ -c "SELECT change->>'operation', class, key, change->'values'->'title'->>'string' FROM floe_log" > "$work/log.txt"
if [ "$moved" = 1 ] && python3 - "$work" <<'PY'
import json, sys
work = sys.argv[1]
expected = json.load(open(f"{work}/postgres.json"))
failed = False
for name in ("c1", "c2"):
    got = json.load(open(f"{work}/{name}.json"))
    differences = sum(1 for cls in set(expected) | set(got) for key in set(got.get(cls, {})) | set(expected.get(cls, {}))
                      if got.get(cls, {}).get(key) != expected.get(cls, {}).get(key))
    print(f"  {name}: {sum(len(o) for o in got.values())} objects, {differences} differ from PostgreSQL")
    failed |= differences > 0
# Every journaled write reached the server (an update of an object deleted meanwhile excepted).
log = [line.split("|") for line in open(f"{work}/log.txt").read().splitlines()]
titles = {row[3] for row in log if len(row) > 3 and row[3]}
deleted = {row[2] for row in log if row[0] == "delete"}
checked = lost = 0
for name in ("c1", "c2"):
    for line in open(f"{work}/{name}.floe.journal"):
        kind, cls, key, title = line.split()
        checked += 1
        lost += title not in titles and not (kind == "update" and key in deleted)
print(f"  journaled writes checked: {checked}, lost: {lost}")
sys.exit(1 if failed or lost or checked == 0 else 0)
PY
then echo "✔ two clients that moved between servers hold exactly PostgreSQL's objects, no write lost"
else echo "✘ clients that moved between servers differ from PostgreSQL or lost writes"; tail -n 3 "$work"/c1.log "$work"/c2.log; failures=$((failures + 1)); fi

for pid in "${servers[@]}"; do
    if ! kill -0 "$pid" 2>/dev/null; then echo "✘ a server died"; failures=$((failures + 1)); fi
done

if [ "$failures" -eq 0 ]; then echo "sync servers: all checks passed"; else echo "sync servers: $failures checks failed"; exit 1; fi
