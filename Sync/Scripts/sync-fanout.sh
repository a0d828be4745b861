#!/usr/bin/env bash
# Opt-in load test (not part of CI), PostgreSQL like sync-test.sh, everything on loopback: one
# server, N connected devices (1,000 by default) speaking the protocol, and a writer uploading one
# change at a time; each change's delay from its upload to its arrival at every connection is
# recorded (the next change goes once every connection has the last one, so the traffic is
# bounded: N messages a change). Run in turn with the log's pages shared between connections
# (the server's default) and read per connection (--no-shared-pages), in open mode and with rules
# and tokens; medians of RUNS alternating rounds are reported by the caller from the lines printed.
# Each round also times a commit on one device reaching another device's realm (as sync-bench.sh's
# L1) with 100 other devices connected (IDLE), and with none.
#
# Usage: Sync/Scripts/sync-fanout.sh   (env: RUNS=3 CLIENTS="100 1000" SAMPLES=20 MODES="open rules" IDLE=100
#                                            LATENCY_SAMPLES=200 CONFIG=release)
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${RUNS:-3}
clients=${CLIENTS:-100 1000}
samples=${SAMPLES:-20}
idle=${IDLE:-100}
latency_samples=${LATENCY_SAMPLES:-200}
modes=${MODES:-open rules}
config=${CONFIG:-release}
pgport=${PGPORT:-54338}
source Scripts/postgres.sh   # (the working directory is Sync/)
server_pid=""
on_exit+=('[ -n "$server_pid" ] && kill -9 "$server_pid" 2>/dev/null')

swift build -c "$config" 2>&1 | tail -1
bin=$(swift build -c "$config" --show-bin-path)
"$bin/floe-sync-client" schema > "$work/schema.json"
keys="$work/keys"
mkdir "$keys"
openssl rand -hex 32 > "$keys/hs256.secret"
# The rule depends on the object (the server judges every change it sends each connection).
cat > "$work/rules.json" <<'JSON'
{"Item": {"read": "$jwt.role == 'member' AND count >= 0", "write": "$jwt.role == 'member'"},
 "Owner": {"read": "$jwt.role == 'member'", "write": "$jwt.role == 'member'"}}
JSON
"$bin/floe-sync-attack" token --dir "$keys" --sub fanout --role member --seconds 86400 > "$work/fanout.token"

start() {   # start MODE SHARING
    [ -n "$server_pid" ] && { kill "$server_pid"; wait "$server_pid" 2>/dev/null || true; }
    local args=(--insecure-no-auth)
    [ "$1" = rules ] && args=(--rules "$work/rules.json" --jwt-hs256-secret-file "$keys/hs256.secret" --jwt-issuer floe-test --jwt-audience floe-sync)
    [ "$2" = off ] && args+=(--no-shared-pages)
    : > "$work/server.log"
    "$bin/floe-sync-server" --schema "$work/schema.json" "${args[@]}" --port 0 --pg-port "$pgport" >"$work/server.log" 2>&1 &
    server_pid=$!
    for _ in $(seq 1 200); do
        port=$(sed -n 's|^listening on ws://127.0.0.1:\([0-9]*\)/sync$|\1|p' "$work/server.log")
        [ -n "$port" ] && curl -fsS "http://127.0.0.1:$port/health" >/dev/null 2>&1 && return 0
        sleep 0.1
    done
    echo "the server did not start"; cat "$work/server.log"; exit 1
}

for run in $(seq 1 "$runs"); do
    for mode in $modes; do
        for sharing in on off; do
            start "$mode" "$sharing"
            token=()
            [ "$mode" = rules ] && token=(--token-file "$work/fanout.token")
            for count in $clients; do
                echo -n "run $run, $mode, shared pages $sharing: "
                "$bin/floe-sync-client" bench-fanout --server "ws://127.0.0.1:$port/sync" --clients "$count" --samples "$samples" "${token[@]}" | tail -1
            done
            if [ "$sharing" = on ]; then
                for others in 0 "$idle"; do
                    rm -f "$work"/latency-*.floe*
                    echo -n "run $run, $mode, device to device: "
                    "$bin/floe-sync-client" bench-latency --dir "$work" --server "ws://127.0.0.1:$port/sync" --samples "$latency_samples" --idle "$others" "${token[@]}" | tail -1
                done
            fi
        done
    done
done
