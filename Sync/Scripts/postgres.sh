# Sourced by the opt-in sync scripts (set -euo pipefail, and `pgport` set, before sourcing):
# PostgreSQL from Debian's packages (installed when missing) running on 127.0.0.1:$pgport in a
# new temporary directory, $work, with `as_postgres` and `psql_` to reach it. On exit each
# command a script added to `on_exit` runs (its servers and clients killed), PostgreSQL stops
# and $work is removed (kept with KEEP=1). PG_OPTIONS adds server settings ("-c fsync=on").
pgbin=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -1 || true)
if [ -z "$pgbin" ]; then
    apt-get update && apt-get install -y postgresql
    pgbin=$(ls -d /usr/lib/postgresql/*/bin | sort -V | tail -1)
fi

work=$(mktemp -d)
chmod 755 "$work"
mkdir "$work/pg"
chown postgres "$work/pg"
as_postgres() { if [ "$(id -u)" = 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi; }
on_exit=()
cleanup() {
    for command in "${on_exit[@]}"; do eval "$command" || true; done
    as_postgres "$pgbin/pg_ctl" -D "$work/pg/data" -m immediate stop >/dev/null 2>&1 || true
    if [ "${KEEP:-0}" = 1 ]; then echo "kept $work"; else rm -rf "$work"; fi
}
trap cleanup EXIT

as_postgres "$pgbin/initdb" -D "$work/pg/data" -A trust -U postgres >/dev/null
as_postgres "$pgbin/pg_ctl" -D "$work/pg/data" -l "$work/pg/log" -w \
    -o "-c listen_addresses=127.0.0.1 -p $pgport -k $work/pg ${PG_OPTIONS:-}" start >/dev/null
psql_() { psql -h 127.0.0.1 -p "$pgport" -U postgres -At -q "$@"; }
