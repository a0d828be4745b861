#!/usr/bin/env bash
# Opt-in security test of the sync server (not part of CI), with PostgreSQL like sync-test.sh.
# Makes keys with openssl (an HS256 secret, ES256 and RS256 key pairs in a JWKS, a test CA and
# a certificate for localhost), starts floe-sync-server with authentication, rules and limits,
# and runs floe-sync-attack:
#   - authentication: no token, expired, not yet valid, wrong signature, tampered payload,
#     alg none, HS/RS confusion, a key of another algorithm, wrong issuer or audience, no
#     expiry, no subject (each refused with 401 before the upgrade); valid HS256, ES256, RS256
#     tokens upgrade; a token that expires during a session ends it with tokenExpired;
#   - rules: writing, upserting, deleting another user's object, taking or giving away an
#     object (ownerId), creating one as another user, a batch with one forbidden change
#     (refused whole), reading another's objects by catch-up from version 0, by guessing
#     keys and by a refetch of their keys (answered by deletes without values), a refetch of
#     an unknown class (refused, typed), an object removed from a device when it stops being readable, a client id claimed
#     by another user;
#   - limits: an oversized message, an oversized batch, a flood, malformed JSON, a binary
#     message, an upload or a refetch before hello, a silent client, a second hello, versions
#     beyond 2^63 - 1 in a hello or an upload;
#   - 10,000 random operations by 5 users checked against a model (0 objects leaked, 0
#     forbidden writes applied, every refusal typed), twice with different seeds;
#   - random messages from a fuzzing client (every answer typed, the server stays up);
#   - the SQL that filters a catch-up by the read rules, held to the conditions' meaning
#     (3,000 random conditions over objects of every kind of value);
#   - key rotation by SIGHUP (the new key in, the removed one out);
#   - TLS: the server serves wss:// with the test certificate, which verifies against the test
#     CA and not without it; plain ws:// and no authentication are refused off loopback.
#
# Usage: Sync/Scripts/sync-attack.sh [operations of the model run, default 10000]
set -euo pipefail
cd "$(dirname "$0")/.."
operations=${1:-10000}
pgport=${PGPORT:-54331}

source Scripts/postgres.sh   # (the working directory is Sync/)
mkdir "$work/keys"
server_pid=""
on_exit+=('[ -n "$server_pid" ] && kill -9 "$server_pid" 2>/dev/null')
echo "PostgreSQL on 127.0.0.1:$pgport"

swift build 2>&1 | tail -1
bin=$(swift build --show-bin-path)

keys="$work/keys"
openssl rand -hex 32 > "$keys/hs256.secret"
openssl genpkey -algorithm EC -pkeyopt ec_paramgen_curve:P-256 -out "$keys/es256.pem" 2>/dev/null
openssl pkey -in "$keys/es256.pem" -pubout -out "$keys/es256.pub.pem"
openssl genpkey -algorithm RSA -pkeyopt rsa_keygen_bits:2048 -out "$keys/rs256.pem" 2>/dev/null
openssl pkey -in "$keys/rs256.pem" -pubout -out "$keys/rs256.pub.pem"
"$bin/floe-sync-attack" setup --dir "$keys"

failures=0
: > "$work/server.log"
start_server() {   # start_server EXTRA-ARGS...
    "$bin/floe-sync-server" --schema "$keys/schema.json" --rules "$keys/rules.json" \
        --jwt-hs256-secret-file "$keys/hs256.secret" --jwks "$keys/jwks.json" --jwt-issuer floe-test --jwt-audience floe-sync \
        --max-message-bytes 1048576 --max-batch-changes 1000 --hello-timeout 2 --debug-state \
        --port 0 --pg-port "$pgport" "$@" >>"$work/server.log" 2>&1 &
    server_pid=$!
    for _ in $(seq 1 300); do
        found=$(sed -n 's|^listening on wss*://127.0.0.1:\([0-9]*\)/sync$|\1|p' "$work/server.log" | tail -1)
        if [ -n "$found" ]; then port=$found; return 0; fi
        sleep 0.1
    done
    echo "FAIL the server did not start"; cat "$work/server.log"; exit 1
}
stop_server() { kill "$server_pid"; wait "$server_pid" 2>/dev/null || true; server_pid=""; : > "$work/server.log"; }
run() { echo "== $*"; if ! "$bin/floe-sync-attack" "$@" --dir "$keys" --port "$port"; then failures=$((failures + 1)); fi; }

start_server
for _ in $(seq 1 100); do curl -fsS "http://127.0.0.1:$port/health" >/dev/null 2>&1 && break; sleep 0.1; done
echo "server on ws://127.0.0.1:$port/sync"
run run
run model --operations "$operations" --seed 1
run model --operations "$((operations / 5))" --seed 2
run fuzz --connections 400 --seed 1
# The SQL that picks a catch-up's changes, against what the read conditions mean.
echo "== read conditions"
if ! "$bin/floe-sync-server" --schema "$keys/schema.json" --insecure-no-auth --pg-port "$pgport" --check-read-conditions 3000 --seed 1; then
    failures=$((failures + 1))
fi

# Key rotation: the JWKS gets a new RSA key under another kid; SIGHUP reloads it.
openssl genpkey -algorithm RSA -pkeyopt rsa_keygen_bits:2048 -out "$keys/rs256-new.pem" 2>/dev/null
openssl pkey -in "$keys/rs256-new.pem" -pubout -out "$keys/rs256-new.pub.pem"
"$bin/floe-sync-attack" jwks --dir "$keys" --rsa-public rs256-new.pub.pem --kid rs2 > "$keys/jwks.json"
kill -HUP "$server_pid"
for _ in $(seq 1 50); do grep -q "keys reloaded" "$work/server.log" && break; sleep 0.1; done
run rotated
if ! kill -0 "$server_pid" 2>/dev/null; then echo "✘ the server died during the attacks"; failures=$((failures + 1)); fi
stop_server

# A flood, against a rate limit below the rate at which the server applies uploads.
start_server --max-messages-per-second 10
run flood
stop_server

# TLS with a test CA: wss:// verifies against the CA, and fails without it.
openssl req -x509 -newkey rsa:2048 -nodes -keyout "$keys/ca.key" -out "$keys/ca.pem" -days 2 -subj "/CN=Floe test CA" 2>/dev/null
openssl req -newkey rsa:2048 -nodes -keyout "$keys/server.key" -out "$keys/server.csr" -subj "/CN=localhost" 2>/dev/null
printf "subjectAltName=DNS:localhost,IP:127.0.0.1\n" > "$keys/san.ext"
openssl x509 -req -in "$keys/server.csr" -CA "$keys/ca.pem" -CAkey "$keys/ca.key" -CAcreateserial -out "$keys/server.pem" -days 2 -extfile "$keys/san.ext" 2>/dev/null
start_server --tls-cert "$keys/server.pem" --tls-key "$keys/server.key"
if curl -fsS --cacert "$keys/ca.pem" "https://localhost:$port/health" >/dev/null; then echo "✔ wss:// serves the certificate, which verifies against the test CA"; else echo "✘ the TLS server did not answer with the CA"; failures=$((failures + 1)); fi
if curl -fsS "https://localhost:$port/health" >/dev/null 2>&1; then echo "✘ the test certificate verified without its CA"; failures=$((failures + 1)); else echo "✔ the test certificate does not verify without its CA"; fi
status=$(curl -s -o /dev/null -w '%{http_code}' --cacert "$keys/ca.pem" -H "Upgrade: websocket" -H "Connection: Upgrade" -H "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==" -H "Sec-WebSocket-Version: 13" "https://localhost:$port/sync")
if [ "$status" = 401 ]; then echo "✔ over TLS too, an upgrade without a token gets 401"; else echo "✘ over TLS an upgrade without a token got $status"; failures=$((failures + 1)); fi
stop_server

# Off loopback: no plain ws:// and no unauthenticated server (both refused at start).
if "$bin/floe-sync-server" --schema "$keys/schema.json" --jwt-hs256-secret-file "$keys/hs256.secret" --jwt-issuer i --jwt-audience a --host 0.0.0.0 --port 0 >"$work/plain.log" 2>&1; then
    echo "✘ a plain ws:// server started on 0.0.0.0"; failures=$((failures + 1))
else echo "✔ plain ws:// off loopback is refused: $(head -1 "$work/plain.log")"; fi
if "$bin/floe-sync-server" --schema "$keys/schema.json" --insecure-no-auth --host 0.0.0.0 --allow-plain --port 0 >"$work/open.log" 2>&1; then
    echo "✘ a server without authentication started on 0.0.0.0"; failures=$((failures + 1))
else echo "✔ no authentication off loopback is refused: $(head -1 "$work/open.log")"; fi

if [ "$failures" -eq 0 ]; then echo "sync attacks: all checks passed"; else echo "sync attacks: $failures runs failed"; exit 1; fi
