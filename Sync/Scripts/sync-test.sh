#!/usr/bin/env bash
# Opt-in end-to-end test of two-way sync (not part of CI): installs PostgreSQL from Debian's
# packages when it is missing, runs it on 127.0.0.1 in a temporary directory, builds and starts
# floe-sync-server, and runs 3 clients (separate processes, separate files) doing random writes
# with random disconnects. PostgreSQL is stopped for 2 s while they write. One client is killed with SIGKILL in the middle of a large upload and
# restarted; the server is killed and restarted while clients write. At the end every client's
# realm must equal the PostgreSQL tables object by object, and every write a client journaled
# after committing it must be in the server's change log (0 lost writes).
# A service writes straight into PostgreSQL meanwhile; its writes must reach every client too.
# The server runs as it would on the internet: wss:// with a certificate from a test CA that
# the clients are given, HS256 tokens (one client's expires during the run and is renewed by
# rewriting its token file), and rules that every class is read and written through.
#
# Usage: Sync/Scripts/sync-test.sh [seconds of random writes per phase, default 15]
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-15}
pgport=${PGPORT:-54329}

PG_OPTIONS="-c fsync=on"
source Scripts/postgres.sh   # (the working directory is Sync/)
pids=()
server_pid=""
on_exit+=('for pid in "${pids[@]}" $server_pid; do kill -9 "$pid" 2>/dev/null || true; done')
echo "PostgreSQL on 127.0.0.1:$pgport"

swift build 2>&1 | tail -1
bin=$(swift build --show-bin-path)
"$bin/floe-sync-client" schema > "$work/schema.json"

# Keys, a test CA and a certificate for localhost, and the rules.
keys="$work/keys"
mkdir "$keys"
openssl rand -hex 32 > "$keys/hs256.secret"
openssl req -x509 -newkey rsa:2048 -nodes -keyout "$keys/ca.key" -out "$keys/ca.pem" -days 2 -subj "/CN=Floe test CA" 2>/dev/null
openssl req -newkey rsa:2048 -nodes -keyout "$keys/server.key" -out "$keys/server.csr" -subj "/CN=localhost" 2>/dev/null
printf "subjectAltName=DNS:localhost,IP:127.0.0.1\n" > "$keys/san.ext"
openssl x509 -req -in "$keys/server.csr" -CA "$keys/ca.pem" -CAkey "$keys/ca.key" -CAcreateserial -out "$keys/server.pem" -days 2 -extfile "$keys/san.ext" 2>/dev/null
cat > "$work/rules.json" <<'JSON'
{"Item": {"read": "$jwt.role == 'member'", "write": "$jwt.role == 'member' AND title != 'forbidden'"},
 "Owner": {"read": "$jwt.role == 'member'", "write": "$jwt.role == 'member'"}}
JSON
token() { "$bin/floe-sync-attack" token --dir "$keys" --sub "$1" --role member --seconds "${2:-3600}"; }
for name in c1 c2 c3 check; do token "$name" > "$work/$name.token"; done

: > "$work/server.log"
start_server() {
    "$bin/floe-sync-server" --schema "$work/schema.json" --rules "$work/rules.json" --port "${port:-0}" --pg-port "$pgport" \
        --jwt-hs256-secret-file "$keys/hs256.secret" --jwt-issuer floe-test --jwt-audience floe-sync \
        --tls-cert "$keys/server.pem" --tls-key "$keys/server.key" --debug-state --metrics-port 0 >>"$work/server.log" 2>&1 &
    server_pid=$!
    local lines
    lines=$(wc -l < "$work/server.log")
    for _ in $(seq 1 200); do
        found=$(sed -n 's|^listening on wss://127.0.0.1:\([0-9]*\)/sync$|\1|p' "$work/server.log" | tail -1)
        metrics=$(tail -n +"$((lines + 1))" "$work/server.log" | sed -n 's|^metrics on \(http://127.0.0.1:[0-9]*/metrics\)$|\1|p' | tail -1)
        if [ -n "$found" ] && [ -n "$metrics" ] && curl -fsS --cacert "$keys/ca.pem" "https://localhost:$found/health" >/dev/null 2>&1; then port=$found; return 0; fi
        sleep 0.1
    done
    echo "FAIL the server did not start"; cat "$work/server.log"; exit 1
}
start_server
url="wss://localhost:$port/sync"
echo "server on $url"

client() {   # client NAME ARGS...: starts a client in the background, logging to $work/NAME.log
    local name=$1; shift
    "$bin/floe-sync-client" run --file "$work/$name.floe" --server "$url" --name "$name" \
        --token-file "$work/$name.token" --ca "$keys/ca.pem" "$@" >>"$work/$name.log" 2>&1 &
    pids+=($!)
    eval "pid_$name=$!"
}

# A service beside the clients writes straight into PostgreSQL, as another backend would:
# inserts, title updates of anyone's items and deletes of its own, in plain SQL. The capture
# triggers log them; they must reach every client like a client's change. Each write is journaled
# once PostgreSQL has committed it (a write that fails while PostgreSQL is down is not).
service() {
    # It waits behind uploads (both take the upload lock), so it writes on a little past the clients.
    local n=0 end=$((SECONDS + seconds + 10)) key id
    while [ $SECONDS -lt $end ]; do
        n=$((n + 1)); key=$((70000000 + n))
        if psql_ -c "INSERT INTO \"Item\" (id, title, count, done, score, tags, place) VALUES ($key, 'svc-$n', $n, false, 0.5,
                '{\"list\": [{\"string\": \"svc\"}]}', '{\"map\": {\"city\": {\"string\": \"Oslo\"}, \"visits\": {\"int\": $n}, \"inner\": null}}')" 2>/dev/null; then
            echo "insert Item $key svc-$n" >> "$work/service.floe.journal"
        fi
        id=$(psql_ -c "UPDATE \"Item\" SET title = 'svc-u-$n', count = count + 1 WHERE id = (SELECT id FROM \"Item\" ORDER BY random() LIMIT 1) RETURNING id" 2>/dev/null || true)
        if [ -n "$id" ]; then echo "update Item $id svc-u-$n" >> "$work/service.floe.journal"; fi
        if [ $((n % 4)) = 0 ]; then psql_ -c "DELETE FROM \"Item\" WHERE id = $((key - 2))" >/dev/null 2>&1 || true; fi
        sleep 0.05
    done
}
: > "$work/service.floe.journal"

# Phase 1: three clients write at random, with random disconnects; c2 starts with a large
# transaction and is killed with SIGKILL while uploading it.
# c1's token expires 3 s in; its file is renewed after 2 s, so its next connection takes the new one.
token c1 3 > "$work/c1.token"
client c1 --seconds "$seconds" --flaky
client c3 --seconds "$seconds" --flaky
(sleep 2; token c1 > "$work/c1.token.new" && mv "$work/c1.token.new" "$work/c1.token") &
client c2 --seconds "$seconds" --flaky --bulk 20000
service & pids+=($!)
for _ in $(seq 1 600); do grep -q '^bulk' "$work/c2.log" 2>/dev/null && break; sleep 0.05; done
sleep 0.3
kill -9 "$pid_c2"
echo "killed c2 (SIGKILL) during its upload"
# The server goes down for a moment while c1 and c3 go on writing offline.
sleep 2
kill -9 "$server_pid"; wait "$server_pid" 2>/dev/null || true
echo "killed the server (SIGKILL)"
sleep 1
start_server
echo "server back on $url"
client c2 --seconds "$((seconds / 2))" --flaky
# PostgreSQL goes down for a moment: uploads fail, nothing is half-applied, clients retry.
sleep 2
as_postgres "$pgbin/pg_ctl" -D "$work/pg/data" -m fast stop >/dev/null
echo "stopped PostgreSQL"
sleep 2
as_postgres "$pgbin/pg_ctl" -D "$work/pg/data" -l "$work/pg/log" -w \
    -o "-c listen_addresses=127.0.0.1 -p $pgport -k $work/pg -c fsync=on" start >/dev/null
echo "PostgreSQL back"
wait "${pids[@]}" 2>/dev/null || true
pids=()

# Phase 2: each client syncs until it has uploaded everything, then once more to download what
# the others uploaded last.
for round in 1 2; do
    for name in c1 c2 c3; do client "$name" --seconds 0; done
    for pid in "${pids[@]}"; do wait "$pid" || { echo "FAIL a client did not synchronize (round $round)"; for f in "$work"/c*.log; do tail -n 3 "$f"; done; exit 1; }; done
    pids=()
done
tail -n 2 "$work"/c1.log "$work"/c2.log "$work"/c3.log | grep synchronized || true

curl -fsS --cacert "$keys/ca.pem" "https://localhost:$port/state" > "$work/postgres.json"
for name in c1 c2 c3; do "$bin/floe-sync-client" dump --file "$work/$name.floe" > "$work/$name.json"; done
psql_ -c "SELECT change->>'operation', class, key, change->'values'->'title'->>'string' FROM floe_log" > "$work/log.txt"
echo "PostgreSQL: $(psql_ -c 'SELECT count(*) FROM "Item"') items, $(psql_ -c 'SELECT count(*) FROM "Owner"') owners, $(psql_ -c 'SELECT count(*) FROM floe_log') logged changes, server version $(psql_ -c 'SELECT max(version) FROM floe_log')"
# Embedded objects are stored inside their owner, as jsonb.
[ "$(psql_ -c "SELECT data_type FROM information_schema.columns WHERE table_name = 'Item' AND column_name = 'place'")" = jsonb ] || { echo "FAIL Item.place is not a jsonb column"; exit 1; }
[ "$(psql_ -c "SELECT count(*) FROM \"Item\" WHERE jsonb_typeof(place) = 'object' AND place ? 'map'")" -gt 0 ] || { echo "FAIL no embedded place stored in PostgreSQL"; exit 1; }

python3 - "$work" <<'PY'
import json, sys
work = sys.argv[1]
expected = json.load(open(f"{work}/postgres.json"))
failed = False
for name in ("c1", "c2", "c3"):
    got = json.load(open(f"{work}/{name}.json"))
    differences = 0
    for cls in sorted(set(expected) | set(got)):
        mine, theirs = got.get(cls, {}), expected.get(cls, {})
        for key in sorted(set(mine) | set(theirs)):
            if mine.get(key) != theirs.get(key):
                differences += 1
                if differences <= 5:
                    print(f"  {name} {cls} {key}: realm {mine.get(key)} != PostgreSQL {theirs.get(key)}")
    count = sum(len(objects) for objects in got.values())
    print(f"{name}: {count} objects, {differences} differ from PostgreSQL")
    failed |= differences > 0

# Every journaled write reached the server: inserts are always applied; an update is applied
# unless the object had been deleted (a delete wins), which the log shows. Every update also
# appended a tag of its own to the item's list, on three devices at once: each tag is in
# PostgreSQL's list unless the item was deleted (lists merge; whole-list replacement loses them).
log = [line.split("|") for line in open(f"{work}/log.txt").read().splitlines()]
titles = {row[3] for row in log if len(row) > 3 and row[3]}
deleted = {row[2] for row in log if row[0] == "delete"}
stored_tags = {key: {element.get("string") for element in (values.get("tags") or {}).get("list", [])}
               for key, values in expected.get("Item", {}).items()}
lost = 0
checked = 0
tags_checked = 0
for name in ("c1", "c2", "c3", "service"):
    for line in open(f"{work}/{name}.floe.journal"):
        kind, cls, key, title = line.split()
        checked += 1
        if kind == "tag":
            tags_checked += 1
            missing = key not in deleted and title not in stored_tags.get(key, set())
        else:
            missing = title not in titles and not (kind == "update" and key in deleted)
        if missing:
            lost += 1
            if lost <= 5:
                print(f"  lost: {name} {line.strip()}")
direct = sum(1 for _ in open(f"{work}/service.floe.journal"))
print(f"journaled writes checked: {checked} (of which straight into PostgreSQL: {direct}, list appends: {tags_checked}), lost: {lost}")
failed |= tags_checked == 0
failed |= direct == 0
failed |= lost > 0
sys.exit(1 if failed else 0)
PY
# Bad input, straight over the WebSocket: a future schema version and an older protocol are refused at hello; a batch
# with one wrong value or an unknown class is refused with a typed error naming the class,
# property and value, and nothing of it reaches PostgreSQL.
before="$(psql_ -c 'SELECT count(*) FROM "Item"')|$(psql_ -c 'SELECT coalesce(max(version), 0) FROM floe_log')"
python3 - "$port" "$keys/ca.pem" "$(cat "$work/check.token")" <<'PY'
import base64, json, os, socket, ssl, struct, sys
port = int(sys.argv[1])
context = ssl.create_default_context(cafile=sys.argv[2])
token = sys.argv[3]

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

def receive(sock):
    first, second = read_exact(sock, 2)
    length = second & 0x7F
    if length == 126:
        length = struct.unpack("!H", read_exact(sock, 2))[0]
    elif length == 127:
        length = struct.unpack("!Q", read_exact(sock, 8))[0]
    return json.loads(read_exact(sock, length))

def send(sock, message):
    payload = json.dumps(message).encode()
    mask = os.urandom(4)
    header = bytes([0x81]) + (bytes([0x80 | len(payload)]) if len(payload) < 126 else bytes([0x80 | 126]) + struct.pack("!H", len(payload)))
    sock.sendall(header + mask + bytes(byte ^ mask[index % 4] for index, byte in enumerate(payload)))

def connect(schema_version, protocol_version=2):
    sock = context.wrap_socket(socket.create_connection(("127.0.0.1", port), timeout=10), server_hostname="localhost")
    key = base64.b64encode(os.urandom(16)).decode()
    sock.sendall(("GET /sync HTTP/1.1\r\nHost: localhost\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                  "Authorization: Bearer %s\r\nSec-WebSocket-Key: %s\r\nSec-WebSocket-Version: 13\r\n\r\n" % (token, key)).encode())
    response = b""
    while b"\r\n\r\n" not in response:
        response += read_exact(sock, 1)
    send(sock, {"hello": {"clientID": "bad-input-check", "protocolVersion": protocol_version, "schemaVersion": schema_version, "serverVersion": 1 << 40}})
    return sock, receive(sock)

_, answer = connect(99)
if answer != {"error": {"_0": {"futureSchemaVersion": {"client": 99, "server": 1}}}}:
    fail("a future schema version was answered with %r" % answer)
print("ok a future schema version is refused:", json.dumps(answer))

_, answer = connect(1, protocol_version=1)
if answer != {"error": {"_0": {"unsupportedProtocol": {"client": 1, "server": 2}}}}:
    fail("a client of protocol 1 was answered with %r" % answer)
print("ok a client of an older protocol is refused:", json.dumps(answer))

def insert(key, title):
    return {"className": "Item", "key": {"int": key}, "operation": "insert", "values": {"id": {"int": key}, "title": title}}

sock, answer = connect(1)
if "welcome" not in answer:
    fail("no welcome: %r" % answer)
send(sock, {"upload": {"throughLocalVersion": 1, "transactions": [{"localVersion": 1, "changes": [
    insert(90000001, {"string": "fine"}), insert(90000002, {"int": 5})]}]}})
answer = receive(sock)
error = answer.get("error", {}).get("_0", {}).get("wrongType")
if not error or error["className"] != "Item" or error["property"] != "title" or "5" not in error["value"]:
    fail("a wrong type was answered with %r" % answer)
print("ok a wrong type is refused:", json.dumps(answer))
send(sock, {"upload": {"throughLocalVersion": 2, "transactions": [{"localVersion": 2, "changes": [
    insert(90000003, {"string": "fine"}), {"className": "Cat", "key": {"int": 1}, "operation": "delete", "values": {}}]}]}})
answer = receive(sock)
if answer != {"error": {"_0": {"unknownClass": {"className": "Cat"}}}}:
    fail("an unknown class was answered with %r" % answer)
print("ok an unknown class is refused:", json.dumps(answer))
send(sock, {"upload": {"throughLocalVersion": 3, "transactions": [{"localVersion": 3, "changes": [
    insert(90000004, {"string": "fine"}), insert(90000005, {"string": "forbidden"})]}]}})
answer = receive(sock)
error = answer.get("error", {}).get("_0", {}).get("forbidden")
if not error or error["className"] != "Item" or error["key"] != "90000005" or error["operation"] != "create" or "forbidden" not in error["rule"]:
    fail("a write the rules refuse was answered with %r" % answer)
print("ok a write the rules refuse is refused:", json.dumps(answer))
PY
after="$(psql_ -c 'SELECT count(*) FROM "Item"')|$(psql_ -c 'SELECT coalesce(max(version), 0) FROM floe_log')"
[ "$before" = "$after" ] || { echo "FAIL the refused batches changed PostgreSQL ($before -> $after)"; exit 1; }
[ "$(psql_ -c "SELECT count(*) FROM \"Item\" WHERE id >= 90000001")" = 0 ] || { echo "FAIL a refused insert reached PostgreSQL"; exit 1; }
echo "ok nothing of the refused batches reached PostgreSQL ($after items|server version)"

# Metrics: the server that ran the end of the test counted its connections, uploads, refusals
# and PostgreSQL timings.
curl -fsS "$metrics" > "$work/metrics.txt"
metric() { awk -v name="$1" '$1 == name { print $2 }' "$work/metrics.txt"; }
for name in floe_sync_connections_opened_total floe_sync_uploads_total floe_sync_uploaded_changes_total floe_sync_changes_sent_total \
            'floe_sync_refusals_total{reason="forbidden"}' 'floe_sync_refusals_total{reason="wrongType"}' floe_sync_upload_seconds_count floe_sync_log_read_seconds_count; do
    value=$(metric "$name")
    [ -n "$value" ] && awk -v v="$value" 'BEGIN { exit !(v > 0) }' || { echo "FAIL metric $name is '${value}'"; grep floe_sync "$work/metrics.txt" | head -40; exit 1; }
done
[ "$(metric floe_sync_connections)" != "" ] || { echo "FAIL no floe_sync_connections gauge"; exit 1; }
echo "ok metrics: $(metric floe_sync_uploads_total) uploads, $(metric floe_sync_changes_sent_total) changes sent, $(metric 'floe_sync_refusals_total{reason="forbidden"}') refused by a rule, $(metric floe_sync_connections) connections open"

# Straight into PostgreSQL: a value no device could hold is refused, naming the class and
# property; a class whose capture is turned off writes nothing to the log; the server's own
# writes are never logged twice.
if out=$(psql_ -c "INSERT INTO \"Item\" (id, title) VALUES (79999999, 'no count')" 2>&1); then
    echo "FAIL an item without its required count was taken: $out"; exit 1
fi
case "$out" in *"Item.count cannot hold NULL"*) echo "ok a direct write no device could hold is refused: $out" ;; *) echo "FAIL refused as: $out"; exit 1 ;; esac
before=$(psql_ -c 'SELECT count(*) FROM floe_log')
psql_ -c 'ALTER TABLE "Owner" DISABLE TRIGGER floe_capture_row, DISABLE TRIGGER floe_capture_statement'
psql_ -c "INSERT INTO \"Owner\" (id, name) VALUES ('quiet', 'not synced')"
[ "$(psql_ -c 'SELECT count(*) FROM floe_log')" = "$before" ] || { echo "FAIL a class with capture turned off was logged"; exit 1; }
psql_ -c "DELETE FROM \"Owner\" WHERE id = 'quiet'"
psql_ -c 'ALTER TABLE "Owner" ENABLE TRIGGER floe_capture_row, ENABLE TRIGGER floe_capture_statement'
echo "ok capture turned off for one class logs nothing"
# Every client's insert carries a title of its own: logged twice, the triggers took the server's write.
twice=$(psql_ -c "SELECT count(*) FROM (SELECT change->'values'->'title'->>'string' FROM floe_log WHERE change->>'operation' = 'insert'
    AND change->'values'->'title'->>'string' ~ '^c[0-9]-' GROUP BY 1 HAVING count(*) > 1) AS repeated")
[ "$twice" = 0 ] || { echo "FAIL $twice uploaded inserts were logged twice"; exit 1; }
echo "ok no uploaded insert was logged twice"
"$bin/floe-sync-server" --schema "$work/schema.json" --insecure-no-auth --pg-port "$pgport" --check-capture "${CAPTURE_WRITES:-2000}"
echo "sync end-to-end: all checks passed"
