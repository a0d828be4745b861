#!/usr/bin/env bash
# Sync figures (release build, PostgreSQL on loopback in a temporary directory), each run
# RUNS times on a fresh database: upload throughput (objects/s into PostgreSQL), latency from
# a commit on one client to the change in another client's realm, and catch-up speed of a new
# client over a log of CHANGES changes (the log is filled by SQL, in server versions of 100
# inserts each, as uploads would have left it). Each figure is taken in two modes, in turn:
# "open" (no tokens, no rules) and "rules" (HS256 tokens and a rule on every class, so that
# every upload is authorized against the stored objects and every download filtered; the
# catch-up also by a member, whose rule the claims decide, and by a reader of one object, whose
# rule PostgreSQL tests); then the
# time to authenticate a connection (an upgrade with a valid token, HS256, ES256 and RS256,
# against the same upgrade without authentication).
#
# Usage: Sync/Scripts/sync-bench.sh   (env: RUNS=3 OBJECTS=20000 SAMPLES=300 CHANGES=1000000 MODES="open rules"
#                                           CONFIG=release)
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${RUNS:-3}
objects=${OBJECTS:-20000}
samples=${SAMPLES:-300}
changes=${CHANGES:-1000000}
modes=${MODES:-open rules}
config=${CONFIG:-release}
pgport=${PGPORT:-54339}
source Scripts/postgres.sh   # (the working directory is Sync/)
server_pid=""
on_exit+=('[ -n "$server_pid" ] && kill -9 "$server_pid" 2>/dev/null')

swift build -c "$config" 2>&1 | tail -1
bin=$(swift build -c "$config" --show-bin-path)
"$bin/floe-sync-client" schema > "$work/schema.json"
keys="$work/keys"
mkdir "$keys"
openssl rand -hex 32 > "$keys/hs256.secret"
openssl genpkey -algorithm EC -pkeyopt ec_paramgen_curve:P-256 -out "$keys/es256.pem" 2>/dev/null
openssl pkey -in "$keys/es256.pem" -pubout -out "$keys/es256.pub.pem"
openssl genpkey -algorithm RSA -pkeyopt rsa_keygen_bits:2048 -out "$keys/rs256.pem" 2>/dev/null
openssl pkey -in "$keys/rs256.pem" -pubout -out "$keys/rs256.pub.pem"
"$bin/floe-sync-attack" setup --dir "$keys"
cat > "$work/rules.json" <<'JSON'
{"Item": {"read": "$jwt.role == 'member' OR ($jwt.role == 'scanner' AND count >= 0) OR title == $jwt.sub",
          "write": "($jwt.role == 'member' OR $jwt.role == 'scanner') AND title != 'forbidden'"},
 "Owner": {"read": "$jwt.role == 'member' OR $jwt.role == 'scanner'", "write": "$jwt.role == 'member' OR $jwt.role == 'scanner'"}}
JSON
# Three readers of Item: a scanner, whose rule holds for every bench object but depends on the
# object (SQL cannot decide it: the server judges every change — the rules' worst case, used for
# U1 and L1); a member, whose rule the claims decide alone (changes passed on as logged); and a
# reader whose rule PostgreSQL tests (title == $jwt.sub), who may read one object.
"$bin/floe-sync-attack" token --dir "$keys" --sub bench --role scanner --seconds 86400 > "$work/bench.token"
"$bin/floe-sync-attack" token --dir "$keys" --sub bench --role member --seconds 86400 > "$work/member.token"
"$bin/floe-sync-attack" token --dir "$keys" --sub "item 7" --role reader --seconds 86400 > "$work/reader.token"
mode=open
server_args() {
    if [ "$mode" = rules ]; then
        echo --rules "$work/rules.json" --jwt-hs256-secret-file "$keys/hs256.secret" --jwks "$keys/jwks.json" --jwt-issuer floe-test --jwt-audience floe-sync
    else
        echo --insecure-no-auth
    fi
}
client_args() { [ "$mode" = rules ] && echo --token-file "$work/bench.token" || true; }

fresh() {   # an empty database and a new server
    [ -n "$server_pid" ] && { kill "$server_pid"; wait "$server_pid" 2>/dev/null || true; }
    psql_ -c 'DROP TABLE IF EXISTS "Item", "Owner", floe_log, floe_clients; DROP SEQUENCE IF EXISTS floe_server_version'
    rm -f "$work"/*.floe
    : > "$work/server.log"
    # shellcheck disable=SC2046
    "$bin/floe-sync-server" --schema "$work/schema.json" $(server_args) --port 0 --pg-port "$pgport" >"$work/server.log" 2>&1 &
    server_pid=$!
    for _ in $(seq 1 200); do
        port=$(sed -n 's|^listening on ws://127.0.0.1:\([0-9]*\)/sync$|\1|p' "$work/server.log")
        [ -n "$port" ] && curl -fsS "http://127.0.0.1:$port/health" >/dev/null 2>&1 && return 0
        sleep 0.1
    done
    echo "the server did not start"; cat "$work/server.log"; exit 1
}

fill_log() {   # $1 changes in the log and the tables, 100 per server version
    psql_ <<SQL
INSERT INTO "Item" (id, title, count, done, score, tags, owner)
    SELECT g, 'item ' || g, g, false, g / 3.0, '{"list":[{"string":"a"}]}'::jsonb, NULL FROM generate_series(1, $1) g;
INSERT INTO floe_log (version, seq, class, key, change)
    SELECT (g - 1) / 100 + 1, (g - 1) % 100, 'Item', g::text, jsonb_build_object('className', 'Item', 'key', jsonb_build_object('int', g),
        'operation', 'insert', 'values', jsonb_build_object('id', jsonb_build_object('int', g), 'title', jsonb_build_object('string', 'item ' || g),
        'count', jsonb_build_object('int', g), 'done', jsonb_build_object('bool', false), 'score', jsonb_build_object('double', g / 3.0),
        'tags', '{"list":[{"string":"a"}]}'::jsonb, 'owner', 'null'::jsonb))
    FROM generate_series(1, $1) g;
SELECT setval('floe_server_version', ($1 - 1) / 100 + 1);
SQL
    # Inserts of new objects carry no images, with or without rules, as uploads leave them.
}

# shellcheck disable=SC2046
for run in $(seq 1 "$runs"); do
  for mode in $modes; do
    echo "-- run $run, $mode"
    fresh
    "$bin/floe-sync-client" bench-upload --file "$work/upload.floe" --server "ws://127.0.0.1:$port/sync" --objects "$objects" $(client_args)
    fresh
    "$bin/floe-sync-client" bench-latency --dir "$work" --server "ws://127.0.0.1:$port/sync" --samples "$samples" $(client_args)
    fresh
    fill_log "$changes"
    # The server learns the newest version on start: restart it over the filled log.
    kill "$server_pid"; wait "$server_pid" 2>/dev/null || true
    "$bin/floe-sync-server" --schema "$work/schema.json" $(server_args) --port "$port" --pg-port "$pgport" >"$work/server.log" 2>&1 &
    server_pid=$!
    for _ in $(seq 1 200); do curl -fsS "http://127.0.0.1:$port/health" >/dev/null 2>&1 && break; sleep 0.1; done
    "$bin/floe-sync-client" bench-catchup --file "$work/catchup.floe" --server "ws://127.0.0.1:$port/sync" --changes "$changes" $(client_args)
    if [ "$mode" = rules ]; then
        rm -f "$work"/catchup.floe*
        echo -n "member (the claims decide): "
        "$bin/floe-sync-client" bench-catchup --file "$work/catchup.floe" --server "ws://127.0.0.1:$port/sync" --changes "$changes" --token-file "$work/member.token"
        rm -f "$work"/catchup.floe*
        echo -n "reader of one object (PostgreSQL decides): "
        "$bin/floe-sync-client" bench-catchup --file "$work/catchup.floe" --server "ws://127.0.0.1:$port/sync" --changes "$changes" --token-file "$work/reader.token"
    fi
  done
done
# The time to authenticate a connection: upgrades with a valid token against upgrades without.
for mode in open rules; do
    fresh
    "$bin/floe-sync-attack" bench-auth --dir "$keys" --port "$port" --connections 500 --mode "$mode"
done
