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
source Scripts/server.sh
start_server "$server"
trap stop_server EXIT
echo "server on 127.0.0.1:$port"

rm -rf "$scratch/failure"
"$scratch/venv/bin/python" Scripts/browser_test.py "http://127.0.0.1:$port" "$scratch/failure" "$@"
