#!/usr/bin/env bash
# End to end: starts the server on a free loopback port with a fresh file, opens a WebSocket,
# POSTs a todo with curl, and checks that the WebSocket receives the new list within 5 s;
# then PATCH, DELETE and GET /todos. Last, with one WebSocket gone without a word, one open and
# one that never answers a close frame, SIGTERM alone must stop the server within 5 s (a graceful
# shutdown that closes the open ones). Kills the server if the test ends any other way.
set -euo pipefail
cd "$(dirname "$0")"
swift build
server="$(swift build --show-bin-path)/TodoServer"
source Scripts/server.sh
start_server "$server"
trap stop_server EXIT   # a passing run has already stopped the server with TERM
echo "server on 127.0.0.1:$port"

curl -fsS "$base/" | grep -q 'new WebSocket' || { echo "FAIL / does not serve the page"; exit 1; }
echo "ok page"

python3 - "$port" "$base" <<'PY'
import base64, json, os, socket, struct, subprocess, sys, time

port, base = int(sys.argv[1]), sys.argv[2]

def fail(message):
    print("FAIL " + message)
    sys.exit(1)

def read_exact(sock, count):
    data = b""
    while len(data) < count:
        chunk = sock.recv(count - len(data))
        if not chunk:
            fail("the WebSocket closed")
        data += chunk
    return data

def read_message(sock):
    """One unfragmented text frame from the server (servers do not mask)."""
    first, second = read_exact(sock, 2)
    length = second & 0x7F
    if length == 126:
        length = struct.unpack("!H", read_exact(sock, 2))[0]
    elif length == 127:
        length = struct.unpack("!Q", read_exact(sock, 8))[0]
    payload = read_exact(sock, length)
    if first & 0x0F != 1:
        fail("expected a text frame, got opcode %d" % (first & 0x0F))
    return json.loads(payload)

sock = socket.create_connection(("127.0.0.1", port), timeout=5)
key = base64.b64encode(os.urandom(16)).decode()
sock.sendall(("GET /live HTTP/1.1\r\nHost: 127.0.0.1:%d\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
              "Sec-WebSocket-Key: %s\r\nSec-WebSocket-Version: 13\r\n\r\n" % (port, key)).encode())
response = b""
while b"\r\n\r\n" not in response:
    response += read_exact(sock, 1)
if b" 101 " not in response.split(b"\r\n")[0]:
    fail("no WebSocket upgrade: %r" % response)

if read_message(sock) != {"todos": []}:
    fail("the first message is not the empty list")
print("ok WebSocket opens with the list")

def curl(*args):
    return subprocess.run(["curl", "-fsS", *args], check=True, capture_output=True, text=True).stdout

started = time.monotonic()
created = json.loads(curl("-X", "POST", "-H", "Content-Type: application/json", "-d", '{"text":"buy milk"}', base + "/todos"))
if created != {"id": 1, "text": "buy milk", "done": False}:
    fail("POST answered %r" % created)
message = read_message(sock)   # the socket's 5 s timeout bounds the wait
elapsed = time.monotonic() - started
if message != {"todos": [{"id": 1, "text": "buy milk", "done": False}]}:
    fail("after POST the WebSocket sent %r" % message)
print("ok POST reaches the WebSocket (%.0f ms after the request started)" % (elapsed * 1000))

patched = json.loads(curl("-X", "PATCH", "-H", "Content-Type: application/json", "-d", '{"done":true}', base + "/todos/1"))
if patched != {"id": 1, "text": "buy milk", "done": True}:
    fail("PATCH answered %r" % patched)
if read_message(sock) != {"todos": [{"id": 1, "text": "buy milk", "done": True}]}:
    fail("the WebSocket did not report the PATCH")
print("ok PATCH reaches the WebSocket")

if json.loads(curl(base + "/todos")) != [{"id": 1, "text": "buy milk", "done": True}]:
    fail("GET /todos does not list the todo")
print("ok GET /todos")

curl("-X", "DELETE", base + "/todos/1")
if read_message(sock) != {"todos": []}:
    fail("the WebSocket did not report the DELETE")
print("ok DELETE reaches the WebSocket")

missing = subprocess.run(["curl", "-s", "-o", "/dev/null", "-w", "%{http_code}", "-X", "DELETE", base + "/todos/1"],
                         capture_output=True, text=True).stdout
if missing != "404":
    fail("DELETE of a missing todo answered %s" % missing)
print("ok DELETE of a missing todo is 404")
PY

# Bound to loopback only: the listening socket's address is 127.0.0.1.
if command -v ss >/dev/null; then
    ss -ltn "sport = :$port" | grep -q "127.0.0.1:$port" || { echo "FAIL not bound to 127.0.0.1"; exit 1; }
    echo "ok bound to 127.0.0.1"
fi
# A page that stays open: it answers the server's close frame, as a browser does, and says so.
python3 - "$port" >"$dir/holder.log" 2>&1 <<'PY' &
import base64, os, socket, struct, sys

port = int(sys.argv[1])
sock = socket.create_connection(("127.0.0.1", port), timeout=20)
key = base64.b64encode(os.urandom(16)).decode()
sock.sendall(("GET /live HTTP/1.1\r\nHost: 127.0.0.1:%d\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
              "Sec-WebSocket-Key: %s\r\nSec-WebSocket-Version: 13\r\n\r\n" % (port, key)).encode())
data = b""
while b"\r\n\r\n" not in data:
    data += sock.recv(1)

def read_exact(count):
    chunk = b""
    while len(chunk) < count:
        more = sock.recv(count - len(chunk))
        if not more:
            print("closed without a close frame"); sys.exit(1)
        chunk += more
    return chunk

while True:
    first, second = read_exact(2)
    length = second & 0x7F
    if length == 126:
        length = struct.unpack("!H", read_exact(2))[0]
    elif length == 127:
        length = struct.unpack("!Q", read_exact(8))[0]
    payload = read_exact(length)
    opcode = first & 0x0F
    if opcode == 1:
        print("list", flush=True)
    elif opcode == 8:
        mask = os.urandom(4)   # a client masks what it sends
        body = bytes(b ^ mask[i % 4] for i, b in enumerate(payload[:2]))
        sock.sendall(bytes([0x88, 0x80 | len(body)]) + mask + body)
        print("close frame answered", flush=True)
        sys.exit(0)
PY
holder=$!
# A client that never answers a close frame (nor closes): it must not hold the shutdown up.
python3 - "$port" >"$dir/mute.log" 2>&1 <<'PY' &
import base64, os, socket, sys, time

sock = socket.create_connection(("127.0.0.1", int(sys.argv[1])), timeout=30)
key = base64.b64encode(os.urandom(16)).decode()
sock.sendall(("GET /live HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
              "Sec-WebSocket-Key: %s\r\nSec-WebSocket-Version: 13\r\n\r\n" % key).encode())
print("open", flush=True)
while sock.recv(65536):   # reads everything, answers nothing, until the server closes the connection
    pass
print("closed by the server", flush=True)
PY
mute=$!
for _ in $(seq 1 50); do grep -q list "$dir/holder.log" && break; sleep 0.1; done
grep -q list "$dir/holder.log" || { echo "FAIL the open WebSocket got no list"; cat "$dir/holder.log"; exit 1; }
for _ in $(seq 1 50); do grep -q open "$dir/mute.log" && break; sleep 0.1; done
sleep 0.5   # its upgrade answered

# SIGTERM alone: the server closes the open WebSocket, does not wait on the one that went
# away nor on the one that does not answer, and exits.
started=$SECONDS
kill -TERM "$pid"
for _ in $(seq 1 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
if kill -0 "$pid" 2>/dev/null; then
    echo "FAIL SIGTERM did not stop the server within 5 s"; cat "$log"; exit 1
fi
set +e; wait "$pid"; status=$?; set -e
[ "$status" -eq 0 ] || { echo "FAIL the server exited with $status after SIGTERM"; cat "$log"; exit 1; }
wait "$holder" || { echo "FAIL the open WebSocket was not closed cleanly"; cat "$dir/holder.log"; exit 1; }
wait "$mute" || true
grep -q "closed by the server" "$dir/mute.log" || { echo "FAIL the mute WebSocket was not closed"; cat "$dir/mute.log"; exit 1; }
echo "ok SIGTERM alone stops the server ($((SECONDS - started)) s), closing the open WebSockets, even one that never answers"
echo "todo server example: all checks passed"
