#!/usr/bin/env bash
# Fleet benchmark (issue 13), release build, on loopback, every number from one run of this script:
#   1. POST /v1/checkin at 64 connections (durable: the 200 goes out after the batch commits) on SQLite and on
#      PostgreSQL, next to the plain POST /v1/update-check of the same run (the ceiling) and pgbench's
#      simple-update on the same PostgreSQL cluster (targets: SQLite >= 20,000/s, PostgreSQL >= 15,000/s,
#      p99 < 20 ms);
#   2. GET /v1/fleet/summary and `mdmconf report` over 100,000 devices x 3 apps (target < 1 s), both stores;
#   3. the store's bytes per device and per check-in.
#
#   bash Tests/Benchmarks/fleet.sh        # SECONDS_PER_RUN=10 DEVICES=100000 by default
set -euo pipefail
cd "$(dirname "$0")/../.."
RUN=${SECONDS_PER_RUN:-10}
DEVICES=${DEVICES:-100000}
PYTHON=$(python3 -c 'import sys; print(sys.executable)')  # the real interpreter, not a shim

source Tests/Benchmarks/common.sh
need wrk:wrk curl:curl
ls /usr/lib/postgresql/*/bin/pgbench >/dev/null 2>&1 || command -v pgbench >/dev/null || need pgbench:postgresql pgbench:postgresql-contrib

swift build -c release --product mdmconf >/dev/null && swift build -c release --product mdmconf-server >/dev/null
BIN="$(swift build -c release --show-bin-path)/mdmconf"
D=$PWD/.build/bench-fleet; rm -rf "$D"; mkdir -p "$D"
ADMIN="Authorization: Bearer example-admin-token-c0ffee"
PORT=18191
SERVER=""
PG="$D/pg"; PG_PORT=18192
cleanup() {
    [ -n "$SERVER" ] && kill "$SERVER" 2>/dev/null || true
    bash Tests/pg-cluster.sh stop "$PG" 2>/dev/null || true
}
trap cleanup EXIT

source Tests/Benchmarks/wrk-common.sh
CATALOG="$D/catalog"
fleet_catalog "$CATALOG" "$PYTHON"
check_in_lua "$D/checkin.lua"
update_check_lua "$D/update-check.lua"
serve() {  # store-url
    "$BIN" serve "$CATALOG" --port $PORT --store "$1" --log-level warning 2>>"$D/serve.log" &
    SERVER=$!
    for _ in $(seq 300); do curl -sf "http://127.0.0.1:$PORT/healthz" >/dev/null && return; sleep 0.1; done
    echo "server did not start"; cat "$D/serve.log"; exit 1
}
stop() { kill "$SERVER"; wait "$SERVER" || true; SERVER=""; }
timed() {  # label command...  (bash's own clock: a Python call on each side would add its start-up, ~30 ms)
    local best=999 t0 t1 dt
    for _ in 1 2 3; do
        t0=$EPOCHREALTIME; "${@:2}" >/dev/null 2>&1 || true; t1=$EPOCHREALTIME
        dt=$("$PYTHON" -c "print(round($t1 - $t0, 3))")
        best=$("$PYTHON" -c "print(min($best, $dt))")
    done
    printf '%-40s best of 3: %s s\n' "$1" "$best"
}

bash Tests/pg-cluster.sh init "$PG"
bash Tests/pg-cluster.sh start "$PG" $PG_PORT
PGBIN=$(bash Tests/pg-cluster.sh bindir)
"$PGBIN/createdb" -h 127.0.0.1 -p $PG_PORT -U mdmconf fleet
"$PGBIN/createdb" -h 127.0.0.1 -p $PG_PORT -U mdmconf big
"$PGBIN/createdb" -h 127.0.0.1 -p $PG_PORT -U mdmconf pgbench
PSQL=("$PGBIN/psql" -h 127.0.0.1 -p $PG_PORT -U mdmconf -q -t -A)
PG_URL="postgres://mdmconf@127.0.0.1:$PG_PORT"

echo "== check-in POST, 64 connections, ${RUN}s each (2 wrk threads); 3 apps a check-in, 2,000 devices =="
serve "sqlite:$D/fleet.sqlite"
summary "update-check POST (ceiling), SQLite run" "$(wrk -t2 -c64 -d${RUN}s --latency -s "$D/update-check.lua" "http://127.0.0.1:$PORT/v1/update-check")"
summary "check-in POST, SQLite" "$(wrk -t2 -c64 -d${RUN}s --latency -s "$D/checkin.lua" "http://127.0.0.1:$PORT/v1/checkin")"
stop
sqlite_bytes=$(du -cb "$D"/fleet.sqlite* | tail -1 | cut -f1)
sqlite_checkins=$("$PYTHON" -c "import sqlite3,sys; print(sqlite3.connect(sys.argv[1]).execute('select count(*) from checkins').fetchone()[0])" "$D/fleet.sqlite")

serve "$PG_URL/fleet"
summary "update-check POST (ceiling), PG run" "$(wrk -t2 -c64 -d${RUN}s --latency -s "$D/update-check.lua" "http://127.0.0.1:$PORT/v1/update-check")"
summary "check-in POST, PostgreSQL" "$(wrk -t2 -c64 -d${RUN}s --latency -s "$D/checkin.lua" "http://127.0.0.1:$PORT/v1/checkin")"
stop
"$PGBIN/pgbench" -h 127.0.0.1 -p $PG_PORT -U mdmconf -i -s 10 -q pgbench >/dev/null 2>&1
pgb=$("$PGBIN/pgbench" -h 127.0.0.1 -p $PG_PORT -U mdmconf -b simple-update -c 64 -j 2 -T "$RUN" pgbench 2>/dev/null)
printf '%-40s %12s tps       latency avg %s ms\n' "pgbench simple-update, 64 clients" \
    "$(grep -E '^tps' <<<"$pgb" | awk '{print $3}' | cut -d. -f1)" "$(grep -E 'latency average' <<<"$pgb" | awk '{print $4}')"
pg_checkins=$("${PSQL[@]}" -d fleet -c "select count(*) from checkins")
pg_history_bytes=$("${PSQL[@]}" -d fleet -c "select pg_total_relation_size('checkins')")

echo "== store size =="
printf 'SQLite: %s bytes for %s check-ins of 2,000 devices: %s bytes a check-in (history, state and indexes)\n' \
    "$sqlite_bytes" "$sqlite_checkins" "$((sqlite_bytes / sqlite_checkins))"
printf 'PostgreSQL: check-in history %s bytes for %s check-ins: %s bytes a check-in\n' \
    "$pg_history_bytes" "$pg_checkins" "$((pg_history_bytes / pg_checkins))"

echo "== ${DEVICES} devices x 3 apps: summary and report =="
serve "sqlite:$D/big.sqlite"  # creates and migrates the store
etag() { curl -sf -o /dev/null -D - -H "$ADMIN" "http://127.0.0.1:$PORT/v1/apps/$1/config" | awk -F': ' 'tolower($1)=="etag" {print $2}' | tr -d '\r'; }
ETAGS=("$(etag com.example.field)" "$(etag com.example.fieldnotes)" "$(etag com.example.fieldsync)")
stop
"$PYTHON" Tests/Benchmarks/fleet-seed.py sqlite "$D/big.sqlite" "$DEVICES" "${ETAGS[@]}"
big_bytes=$(du -cb "$D"/big.sqlite* | tail -1 | cut -f1)
printf 'SQLite: %s bytes for %s devices x 3 apps with one check-in each: %s bytes a device\n' \
    "$big_bytes" "$DEVICES" "$((big_bytes / DEVICES))"
serve "sqlite:$D/big.sqlite"
timed "GET /v1/fleet/summary, SQLite" curl -sf -H "$ADMIN" "http://127.0.0.1:$PORT/v1/fleet/summary"
curl -sf -H "$ADMIN" "http://127.0.0.1:$PORT/v1/fleet/summary" | head -c 400; echo
stop
timed "mdmconf report --format json, SQLite" "$BIN" report --catalog "$CATALOG" --store "sqlite:$D/big.sqlite" --format json
timed "mdmconf report (text), SQLite" "$BIN" report --catalog "$CATALOG" --store "sqlite:$D/big.sqlite"

serve "$PG_URL/big"; stop
# The columns the seed writes (later migrations add columns that stay NULL).
declare -A SEEDED=(
    [devices]="device, platform, os_version, device_model, locale, time_zone, enrolled_at, reported_at, last_checkin, replica"
    [device_apps]="device, app, version, build, channel, config_etag, config_error, deferrals_used, last_checkin"
)
for table in devices device_apps; do
    "$PYTHON" Tests/Benchmarks/fleet-seed.py csv $table "$DEVICES" "${ETAGS[@]}" \
        | "${PSQL[@]}" -d big -c "\\copy $table (${SEEDED[$table]}) FROM STDIN CSV"
done
"$PYTHON" Tests/Benchmarks/fleet-seed.py csv checkins "$DEVICES" "${ETAGS[@]}" \
    | "${PSQL[@]}" -d big -c "\\copy checkins (device, received_at, replica, body) FROM STDIN CSV"
"${PSQL[@]}" -d big -c "VACUUM ANALYZE"
pg_big=$("${PSQL[@]}" -d big -c "select pg_database_size('big')")
printf 'PostgreSQL: database of %s devices x 3 apps with one check-in each: %s bytes (%s a device, catalog overhead included)\n' \
    "$DEVICES" "$pg_big" "$((pg_big / DEVICES))"
serve "$PG_URL/big"
timed "GET /v1/fleet/summary, PostgreSQL" curl -sf -H "$ADMIN" "http://127.0.0.1:$PORT/v1/fleet/summary"
stop
timed "mdmconf report --format json, PostgreSQL" "$BIN" report --catalog "$CATALOG" --store "$PG_URL/big" --format json
timed "mdmconf report (text), PostgreSQL" "$BIN" report --catalog "$CATALOG" --store "$PG_URL/big"
