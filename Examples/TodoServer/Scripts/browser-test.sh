#!/usr/bin/env bash
# Opt-in end-to-end test in a real browser (not part of swift test or CI): installs Debian's
# chromium if it is missing and the websocket-client package from PyPI into a scratch virtual
# environment, builds and starts the server on a free loopback port with a fresh file, opens
# the page twice in headless Chromium (driven over the DevTools protocol by
# Scripts/browser_test.py), writes through one page's UI and through curl, and checks that each
# change shows in the other page within 200 ms. Screenshots of both pages on failure go to
# .build-browser/failure/. Stops the server with SIGTERM at the end.
# Usage: Examples/TodoServer/Scripts/browser-test.sh [--writes N] [--limit-ms MS]
set -euo pipefail
cd "$(dirname "$0")/.."
scratch="$PWD/.build-browser"
mkdir -p "$scratch"

if ! command -v chromium >/dev/null; then
    echo "== installing Debian's chromium"
    if [ "$(id -u)" -ne 0 ]; then echo "browser test: chromium is missing; run apt-get install chromium as root"; exit 1; fi
    DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends chromium >"$scratch/apt.log" 2>&1 \
        || { apt-get update >>"$scratch/apt.log" 2>&1 && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends chromium >>"$scratch/apt.log" 2>&1; } \
        || { tail -20 "$scratch/apt.log"; echo "browser test: could not install chromium"; exit 1; }
fi
if [ ! -x "$scratch/venv/bin/python" ] || ! "$scratch/venv/bin/python" -c 'import websocket' 2>/dev/null; then
    echo "== installing websocket-client into $scratch/venv"
    python3 -m venv "$scratch/venv"
    "$scratch/venv/bin/pip" install --quiet websocket-client
fi

echo "== building the server"
swift build >"$scratch/build.log" 2>&1 || { tail -30 "$scratch/build.log"; exit 1; }
server="$(swift build --show-bin-path)/TodoServer"
dir=$(mktemp -d)
log="$dir/server.log"
"$server" --port 0 --file "$dir/todos.floe" >"$log" 2>&1 &
pid=$!
stop() {
    kill -TERM "$pid" 2>/dev/null || { rm -rf "$dir"; return 0; }
    for _ in $(seq 1 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
    if kill -0 "$pid" 2>/dev/null; then echo "the server did not stop on SIGTERM within 5 s"; kill -9 "$pid" 2>/dev/null || true; fi
    wait "$pid" 2>/dev/null || true
    rm -rf "$dir"
}
trap stop EXIT
port=""
for _ in $(seq 1 100); do
    port=$(sed -n 's|^listening on http://127.0.0.1:\([0-9]*\)$|\1|p' "$log")
    [ -n "$port" ] && break
    sleep 0.1
done
[ -n "$port" ] || { echo "FAIL the server did not start"; cat "$log"; exit 1; }
echo "server on 127.0.0.1:$port"

rm -rf "$scratch/failure"
"$scratch/venv/bin/python" Scripts/browser_test.py "http://127.0.0.1:$port" "$scratch/failure" "$@"
