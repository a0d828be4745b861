#!/usr/bin/env bash
# Opt-in load test (not part of swift test or CI): a release build of the server on a free
# loopback port with a fresh file of 100 todos (plus one the probe renames), then for one
# minute wrk with 50 connections sending 80 % GET /todos and 20 % PATCH /todos/:id
# (Scripts/load.lua), while Scripts/load_probe.py holds a WebSocket on /live and renames the
# probe todo every 100 ms to measure how soon each commit reaches the WebSocket.
# Prints wrk's throughput and latency percentiles and the probe's delivery latency.
# Installs Debian's wrk if it is missing.
# Usage: Examples/TodoServer/Scripts/load-test.sh [seconds] [connections]
set -euo pipefail
cd "$(dirname "$0")/.."
seconds="${1:-60}"
connections="${2:-50}"
scratch="$PWD/.build-load"
mkdir -p "$scratch"
if ! command -v wrk >/dev/null; then
    echo "== installing Debian's wrk"
    DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends wrk >"$scratch/apt.log" 2>&1 \
        || { tail -20 "$scratch/apt.log"; echo "load test: could not install wrk"; exit 1; }
fi

echo "== building the server (release)"
swift build -c release >"$scratch/build.log" 2>&1 || { tail -30 "$scratch/build.log"; exit 1; }
server="$(swift build -c release --show-bin-path)/TodoServer"
source Scripts/server.sh
start_server "$server"
trap stop_server EXIT
for i in $(seq 1 100); do
    curl -fsS -o /dev/null -X POST -H 'Content-Type: application/json' -d "{\"text\":\"todo $i\"}" "$base/todos"
done
curl -fsS -o /dev/null -X POST -H 'Content-Type: application/json' -d '{"text":"probe 0"}' "$base/todos"
echo "server on 127.0.0.1:$port with 101 todos; $connections connections for $seconds s"

python3 Scripts/load_probe.py "$port" 101 "$seconds" >"$scratch/probe.txt" 2>&1 &
probe=$!
LOAD_TODOS=100 wrk --threads 2 --connections "$connections" --duration "${seconds}s" --timeout 10s \
    --script Scripts/load.lua "$base" | tee "$scratch/wrk.txt"
probe_status=0
wait "$probe" || probe_status=$?
cat "$scratch/probe.txt"
[ "$probe_status" -eq 0 ] || { echo "FAIL the probe did not see every write"; exit 1; }
echo "load test: done"
