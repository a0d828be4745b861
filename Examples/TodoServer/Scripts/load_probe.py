#!/usr/bin/env python3
"""Change-stream delivery latency while Scripts/load-test.sh loads the server.

Opens a WebSocket on /live (a plain client, as the page is) and, every interval, renames the
probe todo through PATCH with a fresh text; the delivery latency of a write is the time from
sending the PATCH to the first WebSocket message whose list shows the new text (or a later
one's). Also prints when that message came relative to the PATCH's response (the commit is
durable by then; negative when the WebSocket heard first). Prints p50, p99 and max of both.

Usage: load_probe.py PORT PROBE-ID SECONDS [--interval S]
"""
import argparse, base64, http.client, json, os, socket, statistics, struct, sys, threading, time

parser = argparse.ArgumentParser()
parser.add_argument("port", type=int)
parser.add_argument("probe", type=int)
parser.add_argument("seconds", type=float)
parser.add_argument("--interval", type=float, default=0.1)
options = parser.parse_args()

sock = socket.create_connection(("127.0.0.1", options.port), timeout=30)
key = base64.b64encode(os.urandom(16)).decode()
sock.sendall(("GET /live HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
              "Sec-WebSocket-Key: %s\r\nSec-WebSocket-Version: 13\r\n\r\n" % key).encode())
buffered = b""
while b"\r\n\r\n" not in buffered:
    buffered += sock.recv(4096)
header, buffered = buffered.split(b"\r\n\r\n", 1)
if b" 101 " not in header.split(b"\r\n")[0]:
    sys.exit("probe: no WebSocket upgrade: %r" % header)

seen = {}          # probe text -> monotonic time of the first message showing it
seen_lock = threading.Lock()
messages = [0]


def read_exact(count):
    global buffered
    while len(buffered) < count:
        chunk = sock.recv(65536)
        if not chunk:
            raise EOFError
        buffered += chunk
    data, buffered = buffered[:count], buffered[count:]
    return data


def reader():
    try:
        while True:
            first, second = read_exact(2)
            length = second & 0x7F
            if length == 126:
                length = struct.unpack("!H", read_exact(2))[0]
            elif length == 127:
                length = struct.unpack("!Q", read_exact(8))[0]
            payload = read_exact(length)
            now = time.monotonic()
            if first & 0x0F != 1:
                continue
            messages[0] += 1
            for todo in json.loads(payload)["todos"]:
                if todo["id"] == options.probe:
                    with seen_lock:
                        seen.setdefault(todo["text"], now)
    except (EOFError, OSError):
        pass


threading.Thread(target=reader, daemon=True).start()
connection = http.client.HTTPConnection("127.0.0.1", options.port, timeout=30)
sent = []          # (text, sent at, answered at)
end = time.monotonic() + options.seconds
number = 0
while time.monotonic() < end:
    number += 1
    text = "probe %d" % number
    started = time.monotonic()
    connection.request("PATCH", "/todos/%d" % options.probe, body=json.dumps({"text": text}),
                       headers={"Content-Type": "application/json"})
    response = connection.getresponse()
    response.read()
    answered = time.monotonic()
    if response.status != 200:
        sys.exit("probe: PATCH answered %d" % response.status)
    sent.append((text, started, answered))
    time.sleep(max(0.0, options.interval - (time.monotonic() - started)))
time.sleep(2)      # the last writes' messages

# A write counts as delivered when a message shows its text or a later probe's (under load the
# stream coalesces commits, and a page then shows the newer state at once).
with seen_lock:
    shown = dict(seen)
delivered, earliest, superseded = [], None, 0
for text, started, answered in reversed(sent):
    at = shown.get(text)
    if at is None and earliest is not None:
        at, superseded = earliest, superseded + 1
    if at is not None:
        earliest = at if earliest is None else min(earliest, at)
        delivered.append((at, started, answered))
from_request = sorted((at - started) * 1000 for at, started, _ in delivered)
from_commit = sorted((at - answered) * 1000 for at, _, answered in delivered)
missed = len(sent) - len(delivered)


def percentile(values, share):
    return values[min(len(values) - 1, int(round(share * (len(values) - 1))))]


print("probe: %d writes, %d WebSocket messages, %d shown only through a later write (coalesced), %d never shown"
      % (len(sent), messages[0], superseded, missed))
if from_request:
    print("probe: delivery from the PATCH sent: p50 %.1f ms, p99 %.1f ms, max %.1f ms"
          % (statistics.median(from_request), percentile(from_request, 0.99), from_request[-1]))
    print("probe: delivery after the PATCH's response arrived (negative: the WebSocket heard first): p50 %.1f ms, p99 %.1f ms, max %.1f ms"
          % (statistics.median(from_commit), percentile(from_commit, 0.99), from_commit[-1]))
sys.exit(1 if missed or not from_request else 0)
