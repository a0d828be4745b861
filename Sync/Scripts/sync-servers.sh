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
# Then three servers stand behind a load balancer (a TCP proxy sending each connection to a
# random server) while three clients write at random through it, and servers are killed with
# SIGKILL at random and restarted: at the end every realm equals the tables, no journaled write
# is lost, and no upload was applied twice.
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

start_server() {   # start_server N [PORT]: server N (on PORT, or any free port), its port in port_N, its pid in pid_N
    "$bin/floe-sync-server" --schema "$work/schema.json" --insecure-no-auth --debug-state --port "${2:-0}" --pg-port "$pgport" >"$work/server$1.log" 2>&1 &
    servers+=($!)
    eval "pid_$1=$!"
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

# compare_with_postgres PORT NAME...: each client's realm must equal the tables (read through the
# server on PORT) object by object; every write it journaled after its commit must be in the log
# (an update of an object deleted meanwhile excepted); and no insert is logged twice (each carries
# a title of its own: logged twice, an upload was applied twice).
compare_with_postgres() {
    local port=$1; shift
    curl -fsS "http://127.0.0.1:$port/state" > "$work/postgres.json"
    for name in "$@"; do "$bin/floe-sync-client" dump --file "$work/$name.floe" > "$work/$name.json"; done
    psql_ -c "SELECT change->>'operation', class, key, change->'values'->'title'->>'string' FROM floe_log" > "$work/log.txt"
    python3 - "$work" "$@" <<'PY'
import collections, json, sys
work, names = sys.argv[1], sys.argv[2:]
expected = json.load(open(f"{work}/postgres.json"))
failed = False
for name in names:
    got = json.load(open(f"{work}/{name}.json"))
    differences = sum(1 for cls in set(expected) | set(got) for key in set(got.get(cls, {})) | set(expected.get(cls, {}))
                      if got.get(cls, {}).get(key) != expected.get(cls, {}).get(key))
    print(f"  {name}: {sum(len(o) for o in got.values())} objects, {differences} differ from PostgreSQL")
    failed |= differences > 0
log = [line.split("|") for line in open(f"{work}/log.txt").read().splitlines()]
titles = {row[3] for row in log if len(row) > 3 and row[3]}
deleted = {row[2] for row in log if row[0] == "delete"}
inserted = collections.Counter(row[3] for row in log if row[0] == "insert" and len(row) > 3 and row[3])
twice = sum(1 for count in inserted.values() if count > 1)
checked = lost = 0
for name in names:
    for line in open(f"{work}/{name}.floe.journal"):
        kind, cls, key, title = line.split()
        checked += 1
        lost += title not in titles and not (kind == "update" and key in deleted)
print(f"  journaled writes checked: {checked}, lost: {lost}, applied twice: {twice}")
sys.exit(1 if failed or lost or twice or checked == 0 else 0)
PY
}

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
if [ "$moved" = 1 ] && compare_with_postgres "$port_1" c1 c2
then echo "✔ two clients that moved between servers hold exactly PostgreSQL's objects, no write lost"
else echo "✘ clients that moved between servers differ from PostgreSQL or lost writes"; tail -n 3 "$work"/c1.log "$work"/c2.log; failures=$((failures + 1)); fi

for pid in "$pid_1" "$pid_2"; do
    if ! kill -0 "$pid" 2>/dev/null; then echo "✘ a server died"; failures=$((failures + 1)); fi
done

# Three servers behind a load balancer, killed at random while three clients write through it.
start_server 3
python3 -u - "$work/balancer.port" "$port_1" "$port_2" "$port_3" >"$work/balancer.log" 2>&1 <<'PY' &
import asyncio, random, sys
ports = [int(port) for port in sys.argv[2:]]

async def pipe(reader, writer):
    try:
        while data := await reader.read(65536):
            writer.write(data)
            await writer.drain()
    except Exception:
        pass
    finally:
        writer.close()

async def handle(client_reader, client_writer):
    # Each connection to a random server; a dead one (refused) is skipped.
    for port in random.sample(ports, len(ports)):
        try:
            server_reader, server_writer = await asyncio.open_connection("127.0.0.1", port)
            break
        except OSError:
            continue
    else:
        client_writer.close()
        return
    await asyncio.gather(pipe(client_reader, server_writer), pipe(server_reader, client_writer))

async def main():
    server = await asyncio.start_server(handle, "127.0.0.1", 0)
    with open(sys.argv[1], "w") as file:
        file.write(str(server.sockets[0].getsockname()[1]))
    async with server:
        await server.serve_forever()

asyncio.run(main())
PY
servers+=($!)
for _ in $(seq 1 100); do [ -s "$work/balancer.port" ] && break; sleep 0.1; done
balancer=$(cat "$work/balancer.port")
echo "load balancer on 127.0.0.1:$balancer over servers on $port_1, $port_2, $port_3"
kills=0
killer() {   # kills a random server every 1-2 s and restarts it on its port
    local end=$((SECONDS + $1)) n pid
    while [ $SECONDS -lt $end ]; do
        sleep "1.$((RANDOM % 10))"
        n=$((RANDOM % 3 + 1))
        eval "pid=\$pid_$n"
        kill -9 "$pid" 2>/dev/null || true
        wait "$pid" 2>/dev/null || true
        echo "killed server $n" >> "$work/kills.log"
        sleep 0.3
        eval "start_server $n \$port_$n"
    done
}
balanced=1
for name in c3 c4 c5; do client "$name" "$balancer" 12 & eval "pid_$name=$!"; done
killer 12 & killing=$!
wait "$pid_c3" && wait "$pid_c4" && wait "$pid_c5" || balanced=0
wait "$killing" || true
kills=$(wc -l < "$work/kills.log" 2>/dev/null || echo 0)
for round in 1 2; do for name in c3 c4 c5; do client "$name" "$balancer" 0 || balanced=0; done; done
if [ "$balanced" = 1 ] && compare_with_postgres "$balancer" c3 c4 c5
then echo "✔ three clients behind a load balancer, $kills servers killed with SIGKILL: every realm holds exactly PostgreSQL's objects, no write lost or applied twice"
else echo "✘ behind the load balancer with servers killed, a client differs from PostgreSQL, lost a write or one was applied twice"; tail -n 3 "$work"/c3.log "$work"/c4.log "$work"/c5.log; failures=$((failures + 1)); fi
[ "$kills" -ge 3 ] || { echo "✘ only $kills servers were killed"; failures=$((failures + 1)); }

if [ "$failures" -eq 0 ]; then echo "sync servers: all checks passed"; else echo "sync servers: $failures checks failed"; exit 1; fi
