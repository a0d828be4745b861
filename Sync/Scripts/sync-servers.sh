#!/usr/bin/env bash
# Opt-in test of several servers on one PostgreSQL (not part of CI), with PostgreSQL like
# sync-test.sh: two floe-sync-server processes share a database; a client on one commits and a
# client on the other must receive each change (each server follows the others' commits with
# LISTEN floe_log), in both directions, timed (commit → the other device, through two servers);
# then every server's LISTEN connection is cut (pg_terminate_backend) and the changes must still
# arrive once the servers listen again.
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
    "$bin/floe-sync-server" --schema "$work/schema.json" --insecure-no-auth --port 0 --pg-port "$pgport" >"$work/server$1.log" 2>&1 &
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
for pid in "${servers[@]}"; do
    if ! kill -0 "$pid" 2>/dev/null; then echo "✘ a server died"; failures=$((failures + 1)); fi
done

if [ "$failures" -eq 0 ]; then echo "sync servers: all checks passed"; else echo "sync servers: $failures checks failed"; exit 1; fi
