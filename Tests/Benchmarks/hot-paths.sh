#!/usr/bin/env bash
# The hot paths, every ratio in one table from one run (the server built as the README installs it: release, static
# Swift runtime; loopback, wrk at 64 connections with 2 threads, nginx with 2 workers serving the same bytes with
# `etag on`):
#   config GET, its 304 and the device-token GET against nginx (target ≥ 1.0×, p99 < 5 ms);
#   config GET over TLS against nginx with the same certificate (≥ 0.8×);
#   the update-check POST against a config GET run just before it (≥ 0.9×);
#   durable check-ins against the update-check ceiling of the same server: SQLite ≥ 0.7×, PostgreSQL ≥ 0.6×
#   (p99 < 15 ms), with SQLite's own insert speed for the same batch and pgbench with the same batch beside them;
#   `report` (text, JSON) and GET /v1/fleet/summary over DEVICES devices × 3 apps against the database handing over
#   the same rows (sqlite3 into /dev/null, psql \copy to /dev/null): ≤ 2×.
#
#   bash Tests/Benchmarks/hot-paths.sh        # SECONDS_PER_RUN=5 DEVICES=100000 by default
#   SERVER_BUILD=dynamic bash Tests/Benchmarks/hot-paths.sh   # the plain release build instead of the installed one
set -euo pipefail
cd "$(dirname "$0")/../.."
RUN=${SECONDS_PER_RUN:-5}
DEVICES=${DEVICES:-100000}
PYTHON=$(python3 -c 'import sys; print(sys.executable)')  # the real interpreter, not a shim

source Tests/Benchmarks/common.sh
need wrk:wrk nginx:nginx curl:curl sqlite3:sqlite3
ls /usr/lib/postgresql/*/bin/pgbench >/dev/null 2>&1 || command -v pgbench >/dev/null || need pgbench:postgresql pgbench:postgresql-contrib

D=$PWD/.build/bench-hot-paths; rm -rf "$D"; mkdir -p "$D/www"
# The server as the README installs it (static Swift runtime); SERVER_BUILD=dynamic measures `swift build -c release`.
if [ "${SERVER_BUILD:-installed}" = dynamic ]; then
    swift build -c release --product mdmconf-server >/dev/null
    BIN="$(swift build -c release --show-bin-path)/mdmconf-server"
else
    installed_server "$D/mdmconf-server"
    BIN="$D/mdmconf-server"
fi
ADMIN="Authorization: Bearer example-admin-token-c0ffee"
DEVICE="Authorization: Bearer example-device-token-iphone-0117"
CONFIG="/v1/apps/com.example.field/config?device=ipad-0042"
PORT=18481; TLS_PORT=18482; NGINX_PORT=18483; NGINX_TLS=18484; PG_PORT=18485
SERVER=""; TLS_SERVER=""
PG="$D/pg"
cleanup() {
    for pid in $SERVER $TLS_SERVER; do kill "$pid" 2>/dev/null || true; done
    [ -f "$D/nginx.pid" ] && kill "$(cat "$D/nginx.pid")" 2>/dev/null || true
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

# One wrk run: sets RPS and P99 (in ms).
RPS=0; P99=0
load() {  # wrk arguments…
    local out
    out=$(wrk -t2 -c64 -d${RUN}s --latency "$@")
    RPS=$(awk '/^Requests\/sec/ {print int($2)}' <<<"$out")
    P99=$(awk '$1 == "99%" {v=$2; if (v ~ /us$/) {sub(/us/,"",v); v/=1000} else if (v ~ /ms$/) {sub(/ms/,"",v)} else if (v ~ /s$/) {sub(/s/,"",v); v*=1000}; print v}' <<<"$out")
    if grep -qE 'Non-2xx|Socket errors' <<<"$out"; then echo "  (errors in: $*: $(grep -E 'Non-2xx|Socket errors' <<<"$out" | tr '\n' ' '))" >&2; fi
}
ROWS=()
row() {  # path  ours  peer-label  peer  ratio-kind(higher|lower)  target  p99
    local ratio
    ratio=$(awk -v a="$2" -v b="$4" 'BEGIN { if (b > 0) printf "%.2f", a / b; else print "-" }')
    ROWS+=("$(printf '| %s | %s | %s: %s | **%s×** | %s %s | %s |' "$1" "$2" "$3" "$4" "$ratio" \
        "$([ "$5" = higher ] && echo '≥' || echo '≤')" "$6" "$7")")
    echo "${ROWS[-1]}"
}
best_of_3() {  # command… : prints the fastest wall time in seconds
    local best=999 t0 t1
    for _ in 1 2 3; do
        t0=$EPOCHREALTIME; "$@" >/dev/null 2>&1 || true; t1=$EPOCHREALTIME
        best=$(awk -v b="$best" -v d="$(awk -v a="$t0" -v z="$t1" 'BEGIN {print z - a}')" 'BEGIN {print (d < b ? d : b)}')
    done
    printf '%.3f' "$best"
}

bash Tests/pg-cluster.sh init "$PG" >/dev/null
bash Tests/pg-cluster.sh start "$PG" $PG_PORT >/dev/null
PGBIN=$(bash Tests/pg-cluster.sh bindir)
for db in fleet big pgbench; do "$PGBIN/createdb" -h 127.0.0.1 -p $PG_PORT -U mdmconf $db; done
PSQL=("$PGBIN/psql" -h 127.0.0.1 -p $PG_PORT -U mdmconf -q -t -A)
PG_URL="postgres://mdmconf@127.0.0.1:$PG_PORT"

# TLS: mdmconf with a development certificate, nginx with the same certificate and key.
"$BIN" serve "$CATALOG" --store none --port $TLS_PORT --dev-cert "$D/cert" --log-level warning 2>"$D/tls.log" &
TLS_SERVER=$!
serve "sqlite:$D/fleet.sqlite"
for _ in $(seq 100); do curl -sf --cacert "$D/cert/ca.pem" "https://localhost:$TLS_PORT/healthz" >/dev/null && break; sleep 0.1; done
curl -sf -H "$ADMIN" "http://127.0.0.1:$PORT$CONFIG" >"$D/www/config.plist"
cat >"$D/nginx.conf" <<NGINX
worker_processes 2;
pid $D/nginx.pid;
error_log $D/nginx-error.log;
events { worker_connections 1024; }
http {
    access_log off;
    types { application/x-plist plist; }
    server {
        listen 127.0.0.1:$NGINX_PORT;
        location / { root $D/www; etag on; }
    }
    server {
        listen 127.0.0.1:$NGINX_TLS ssl;
        ssl_certificate $D/cert/server.pem;
        ssl_certificate_key $D/cert/server-key.pem;
        ssl_protocols TLSv1.2 TLSv1.3;
        location / { root $D/www; etag on; }
    }
}
NGINX
nginx -c "$D/nginx.conf"
sleep 0.5
header() { curl -sf -o /dev/null -D - "${@:2}" | awk -F': ' -v h="$1" 'tolower($1)==h {print $2}' | tr -d '\r'; }
NGINX_ETAG=$(header etag "http://127.0.0.1:$NGINX_PORT/config.plist")
OUR_ETAG=$(header etag -H "$ADMIN" "http://127.0.0.1:$PORT$CONFIG")
[ "$(curl -s -o /dev/null -w '%{http_code}' -H "If-None-Match: $NGINX_ETAG" "http://127.0.0.1:$NGINX_PORT/config.plist")" = 304 ]

echo "== $(date -u '+%Y-%m-%d %H:%M') UTC, $(nproc) cores, ${RUN} s wrk runs at 64 connections =="
echo "| path | mdmconf (req/s or s) | peer | ratio | target | mdmconf p99 ms |"
echo "| --- | ---: | --- | ---: | --- | ---: |"
# Each ratio is of two runs next to each other, the peer's first: over the minutes of the table the machine's speed
# drifts by more than a ratio's margin (the update check against a config GET eight runs earlier read 0.78–1.12×).
load "http://127.0.0.1:$NGINX_PORT/config.plist"; nginx_get=$RPS
load -H "$ADMIN" "http://127.0.0.1:$PORT$CONFIG"; get=$RPS; get_p99=$P99
row "config GET" "$get" nginx "$nginx_get" higher 1.0 "$get_p99"
load -H "If-None-Match: $NGINX_ETAG" "http://127.0.0.1:$NGINX_PORT/config.plist"; nginx_304=$RPS
load -H "$ADMIN" -H "If-None-Match: $OUR_ETAG" "http://127.0.0.1:$PORT$CONFIG"
row "config GET → 304" "$RPS" "nginx 304" "$nginx_304" higher 1.0 "$P99"
load "http://127.0.0.1:$NGINX_PORT/config.plist"; nginx_get=$RPS
load -H "$DEVICE" "http://127.0.0.1:$PORT/v1/apps/com.example.field/config"
row "config GET, device token" "$RPS" nginx "$nginx_get" higher 1.0 "$P99"
load "https://localhost:$NGINX_TLS/config.plist"; nginx_tls=$RPS
load -H "$ADMIN" "https://localhost:$TLS_PORT$CONFIG"
row "config GET over TLS" "$RPS" "nginx TLS" "$nginx_tls" higher 0.8 "$P99"
load -H "$ADMIN" "http://127.0.0.1:$PORT$CONFIG"; get_before=$RPS
load -s "$D/update-check.lua" "http://127.0.0.1:$PORT/v1/update-check"; ceiling=$RPS
row "update-check POST" "$ceiling" "config GET just before" "$get_before" higher 0.9 "$P99"
load -s "$D/checkin.lua" "http://127.0.0.1:$PORT/v1/checkin"
row "check-in POST, SQLite" "$RPS" "update-check" "$ceiling" higher 0.7 "$P99"
stop
serve "$PG_URL/fleet"
load -s "$D/update-check.lua" "http://127.0.0.1:$PORT/v1/update-check"; ceiling=$RPS
load -s "$D/checkin.lua" "http://127.0.0.1:$PORT/v1/checkin"
row "check-in POST, PostgreSQL" "$RPS" "update-check" "$ceiling" higher 0.6 "$P99"
stop

# The databases' own commit speed with the check-in's batch (what the writer commits at a time under this load:
# up to 64 check-ins, each an insert of the history row and upserts of the device and its 3 apps).
echo "-- the databases alone, the same batch: 64 check-ins a transaction (history row, device, 3 apps each) --"
cp "$D/fleet.sqlite" "$D/batch.sqlite"
"$PYTHON" - "$D/batch.sql" <<'PY'
import sys
with open(sys.argv[1], "w") as out:
    out.write("PRAGMA journal_mode=WAL;\nPRAGMA synchronous=FULL;\n")
    for batch in range(200):
        out.write("BEGIN;\n")
        for i in range(64):
            device = f"bench-{(batch * 64 + i) % 2000:05d}"
            out.write(f"INSERT INTO checkins (device, received_at, replica, body) VALUES ('{device}', {batch}, 'r', '{'x' * 300}');\n")
            out.write(f"UPDATE devices SET reported_at = {batch} WHERE device = '{device}';\n")
            for app in ("com.example.field", "com.example.fieldnotes", "com.example.fieldsync"):
                out.write(f"UPDATE device_apps SET last_checkin = {batch} WHERE device = '{device}' AND app = '{app}';\n")
        out.write("COMMIT;\n")
PY
t=$(best_of_3 sqlite3 "$D/batch.sqlite" ".read $D/batch.sql")
echo "sqlite3, WAL, synchronous=FULL: $((200 * 64)) check-ins in $t s: $(awk -v t="$t" 'BEGIN {printf "%d", 12800 / t}') check-ins/s"
cat >"$D/pgbench.sql" <<'SQL'
\set d random(0, 1999)
BEGIN;
INSERT INTO checkins (device, received_at, replica, body) SELECT 'bench-' || lpad(((:d + g) % 2000)::text, 5, '0'), :d, 'r', repeat('x', 300) FROM generate_series(1, 64) AS g;
UPDATE devices SET reported_at = :d WHERE device IN (SELECT 'bench-' || lpad(((:d + g) % 2000)::text, 5, '0') FROM generate_series(1, 64) AS g);
UPDATE device_apps SET last_checkin = :d WHERE device IN (SELECT 'bench-' || lpad(((:d + g) % 2000)::text, 5, '0') FROM generate_series(1, 64) AS g);
COMMIT;
SQL
pgb=$("$PGBIN/pgbench" -h 127.0.0.1 -p $PG_PORT -U mdmconf -n -f "$D/pgbench.sql" -c 2 -j 2 -T "$RUN" fleet 2>&1 || true)
tps=$(awk '/^tps/ {print int($3)}' <<<"$pgb")
echo "pgbench, the same batch, 2 clients: ${tps:-?} transactions/s = $(( ${tps:-0} * 64 )) check-ins/s"

# Reports over DEVICES devices × 3 apps, against the database handing over the same rows.
echo "-- ${DEVICES} devices × 3 apps: report and summary against reading the rows --"
serve "sqlite:$D/big.sqlite"
etag() { header etag -H "$ADMIN" "http://127.0.0.1:$PORT/v1/apps/$1/config"; }
ETAGS=("$(etag com.example.field)" "$(etag com.example.fieldnotes)" "$(etag com.example.fieldsync)")
stop
"$PYTHON" Tests/Benchmarks/fleet-seed.py sqlite "$D/big.sqlite" "$DEVICES" "${ETAGS[@]}"
DEVICE_ROWS="SELECT device, platform, os_version, device_model, locale, time_zone, enrolled_at, reported_at, last_checkin, replica FROM devices ORDER BY device"
APP_ROWS="SELECT device, app, version, build, channel, config_etag, config_error, deferrals_used, last_checkin, delivery, ddm_state, ddm_config_state FROM device_apps ORDER BY device, app"
reading=$(best_of_3 sqlite3 "$D/big.sqlite" "$DEVICE_ROWS; $APP_ROWS")
row "report (text), SQLite" "$(best_of_3 "$BIN" report --catalog "$CATALOG" --store "sqlite:$D/big.sqlite")" "sqlite3 reading the rows" "$reading" lower 2.0 -
row "report --format json, SQLite" "$(best_of_3 "$BIN" report --catalog "$CATALOG" --store "sqlite:$D/big.sqlite" --format json)" "sqlite3 reading the rows" "$reading" lower 2.0 -
serve "sqlite:$D/big.sqlite"
row "GET /v1/fleet/summary, SQLite" "$(best_of_3 curl -sf -H "$ADMIN" "http://127.0.0.1:$PORT/v1/fleet/summary")" "sqlite3 reading the rows" "$reading" lower 2.0 -
stop
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
pg_read() { "${PSQL[@]}" -d big -c "\\copy ($DEVICE_ROWS) TO '/dev/null'" && "${PSQL[@]}" -d big -c "\\copy ($APP_ROWS) TO '/dev/null'"; }
reading=$(best_of_3 pg_read)
row "report (text), PostgreSQL" "$(best_of_3 "$BIN" report --catalog "$CATALOG" --store "$PG_URL/big")" "psql \\copy of the rows" "$reading" lower 2.0 -
row "report --format json, PostgreSQL" "$(best_of_3 "$BIN" report --catalog "$CATALOG" --store "$PG_URL/big" --format json)" "psql \\copy of the rows" "$reading" lower 2.0 -
serve "$PG_URL/big"
row "GET /v1/fleet/summary, PostgreSQL" "$(best_of_3 curl -sf -H "$ADMIN" "http://127.0.0.1:$PORT/v1/fleet/summary")" "psql \\copy of the rows" "$reading" lower 2.0 -
stop

echo
echo "== the table =="
echo "| path | mdmconf (req/s or s) | peer | ratio | target | mdmconf p99 ms |"
echo "| --- | ---: | --- | ---: | --- | ---: |"
printf '%s\n' "${ROWS[@]}"
