#!/usr/bin/env bash
# Admin page budget (issue 18, *The admin page*): the server-side time of each page (its Server-Timing header: queries
# and rendering), release build, median of RUNS requests:
#   1. every page for the example catalog with a SQLite store holding a few check-ins (target < 20 ms);
#   2. the overview, fleet and device pages over DEVICES devices x 3 apps (target < 200 ms for the fleet page):
#      the first request starts counting the fleet in the background; later ones reuse the count for 15 s.
#
#   bash Tests/Benchmarks/admin-pages.sh        # RUNS=30 DEVICES=100000 by default
set -euo pipefail
cd "$(dirname "$0")/../.."
RUNS=${RUNS:-30}
DEVICES=${DEVICES:-100000}
PYTHON=$(python3 -c 'import sys; print(sys.executable)')  # the real interpreter, not a shim
swift build -c release --product mdmconf >/dev/null && swift build -c release --product mdmconf-server >/dev/null
BIN="$(swift build -c release --show-bin-path)/mdmconf"
D=$PWD/.build/bench-admin; rm -rf "$D"; mkdir -p "$D"
ADMIN="Authorization: Bearer example-admin-token-c0ffee"
PORT=18291
SERVER=""
cleanup() { [ -n "$SERVER" ] && kill "$SERVER" 2>/dev/null || true; }
trap cleanup EXIT

serve() {  # catalog store-url
    "$BIN" serve "$1" --port $PORT --store "$2" --log-level warning 2>>"$D/serve.log" &
    SERVER=$!
    for _ in $(seq 300); do curl -sf "http://127.0.0.1:$PORT/healthz" >/dev/null && return; sleep 0.1; done
    echo "server did not start"; cat "$D/serve.log"; exit 1
}
stop() { kill "$SERVER"; wait "$SERVER" || true; SERVER=""; }
login() {
    local jar="$D/jar"
    rm -f "$jar"
    local token
    token=$(curl -sf -c "$jar" "http://127.0.0.1:$PORT/admin/login" | sed -n 's/.*name="csrf" value="\([0-9a-f]*\)".*/\1/p' | head -1)
    curl -sf -b "$jar" -c "$jar" -o /dev/null -d "csrf=$token&token=example-admin-token-c0ffee&next=/admin" \
        "http://127.0.0.1:$PORT/admin/login"
}
timing() {  # path → the render durations of RUNS requests, one per line
    for _ in $(seq "$RUNS"); do
        curl -sf -b "$D/jar" -o /dev/null -D - "http://127.0.0.1:$PORT$1" \
            | tr -d '\r' | sed -n 's/^[Ss]erver-[Tt]iming: render;dur=//p'
    done
}
report() {  # label path
    timing "$2" | "$PYTHON" -c '
import statistics, sys
values = [float(line) for line in sys.stdin if line.strip()]
print(f"{sys.argv[1]:<58} median {statistics.median(values):7.2f} ms   max {max(values):7.2f} ms   ({len(values)} requests)")
' "$1"
}

echo "== the example catalog, SQLite store, a few check-ins =="
serve Examples/catalog "sqlite:$D/small.sqlite"
for body in \
    '{"device":"iphone-0117","platform":"ios","osVersion":"17.4.1","apps":[{"app":"com.example.field","version":"3.2.1"}]}' \
    '{"device":"ipad-0042","platform":"ipados","osVersion":"17.2","apps":[{"app":"com.example.field","version":"2.3.1"}]}' \
    '{"device":"iphone-0201","platform":"ios","osVersion":"15.7","apps":[{"app":"com.example.field","version":"2.0"}]}'; do
    curl -sf -o /dev/null -H "$ADMIN" -H 'Content-Type: application/json' -d "$body" "http://127.0.0.1:$PORT/v1/checkin"
done
"$BIN" publish Examples/catalog --store "sqlite:$D/small.sqlite" --message bench >/dev/null
login
report "overview" /admin
report "app (schema table, configs, as served)" "/admin/apps/com.example.field?device=ipad-0042"
report "validate (form)" /admin/validate
report "update what-if (decision with trace)" "/admin/update?app=com.example.field&version=2.3.1&platform=ios&osVersion=17.4&timeZone=America%2FSao_Paulo"
report "policy what-if (URL with trace)" "/admin/policy?type=url&arg=https%3A%2F%2Fadmin.acme.com%2Flogin"
report "fleet" /admin/fleet
report "device" /admin/fleet/devices/iphone-0117
report "history" /admin/history
report "generation (diff)" /admin/history/1
stop

echo "== ${DEVICES} devices x 3 apps, SQLite =="
CATALOG="$D/catalog"
cp -rL Examples/catalog "$CATALOG"
cp -r "$CATALOG/apps/com.example.field" "$CATALOG/apps/com.example.fieldnotes"
sed -i 's/com\.example\.field\b/com.example.fieldnotes/g' $(grep -rl 'com.example.field' "$CATALOG/apps/com.example.fieldnotes")
serve "$CATALOG" "sqlite:$D/big.sqlite"
etag() { curl -sf -o /dev/null -D - -H "$ADMIN" "http://127.0.0.1:$PORT/v1/apps/$1/config" | awk -F': ' 'tolower($1)=="etag" {print $2}' | tr -d '\r'; }
ETAGS=("$(etag com.example.field)" "$(etag com.example.fieldnotes)" "$(etag com.example.fieldsync)")
stop
"$PYTHON" Tests/Benchmarks/fleet-seed.py sqlite "$D/big.sqlite" "$DEVICES" "${ETAGS[@]}"
serve "$CATALOG" "sqlite:$D/big.sqlite"
login
RUNS=1 report "fleet page, first request (starts counting in the background)" /admin/fleet
for _ in $(seq 100); do  # until the count is there
    curl -sf -b "$D/jar" "http://127.0.0.1:$PORT/admin/fleet" | grep -q "Counting" || break
    sleep 0.2
done
report "fleet page (count reused)" /admin/fleet
report "fleet page, non-compliant filter" "/admin/fleet?status=noncompliant"
report "fleet page, required filter, page 2" "/admin/fleet?decision=required&page=dev-000500"
report "overview (count reused)" /admin
report "device page" /admin/fleet/devices/dev-000042
