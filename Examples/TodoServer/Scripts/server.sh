# Sourced by test.sh and the opt-in scripts: starts the TodoServer binary named by $1 on a free
# loopback port with a fresh file in a temporary folder, and sets `pid`, `dir`, `log`, `port` and
# `base`. `stop_server` stops it with SIGTERM (SIGKILL after 5 s, saying so) and removes the
# folder; the caller decides whether to trap it on EXIT.
start_server() {
    dir=$(mktemp -d)
    log="$dir/server.log"
    "$1" --port 0 --file "$dir/todos.floe" >"$log" 2>&1 &
    pid=$!
    port=""
    for _ in $(seq 1 100); do
        port=$(sed -n 's|^listening on http://127.0.0.1:\([0-9]*\)$|\1|p' "$log")
        [ -n "$port" ] && break
        sleep 0.1
    done
    if [ -z "$port" ]; then
        echo "FAIL the server did not start"; cat "$log"
        kill -9 "$pid" 2>/dev/null || true; rm -rf "$dir"; exit 1
    fi
    base="http://127.0.0.1:$port"
}

stop_server() {
    kill -TERM "$pid" 2>/dev/null || { rm -rf "$dir"; return 0; }
    for _ in $(seq 1 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
    if kill -0 "$pid" 2>/dev/null; then echo "the server did not stop on SIGTERM within 5 s"; kill -9 "$pid" 2>/dev/null || true; fi
    wait "$pid" 2>/dev/null || true
    rm -rf "$dir"
}
