#!/usr/bin/env bash
# Fault tests for `mdmconf serve` (issue 7), release build, on loopback, against a copy of Examples/catalog:
#   1. slow clients: 500 connections trickling headers (Tests/Load/slowloris.py) while normal requests go on;
#   2. oversized requests: 8 MiB bodies announced and chunked, 200 of them, 16 at a time (all must be 413);
#   3. a reload storm: 100 SIGHUP reloads, every other one of a broken catalog, under wrk at 256 connections
#      (no failed request, no answer mixing two catalogs: Tests/Load/consistency.lua);
#   4. SIGTERM under load: a slow upload in flight and wrk at 64 connections; the upload must get its answer
#      and the server exit 0.
#
#   bash Tests/Load/faults.sh
set -euo pipefail
cd "$(dirname "$0")/../.."

source Tests/Benchmarks/common.sh
need wrk:wrk curl:curl
PY=$(python3 -c 'import sys; print(sys.executable)')

swift build -c release --product mdmconf >/dev/null && swift build -c release --product mdmconf-server >/dev/null
BIN="$(swift build -c release --show-bin-path)/mdmconf"
DATA=.build/load-faults; rm -rf "$DATA"; mkdir -p "$DATA"
cp -rL Examples/catalog "$DATA/catalog"
CATALOG="$DATA/catalog"
cat >"$CATALOG/mdmconf-server.plist" <<'PLIST'
<?xml version="1.0" encoding="UTF-8"?>
<plist version="1.0"><dict><key>requestTimeout</key><real>5</real></dict></plist>
PLIST
PORT=18191
URL="http://127.0.0.1:$PORT"
AUTH="Authorization: Bearer example-admin-token-c0ffee"
SERVER=""
start() {
    "$BIN" serve "$CATALOG" --port $PORT --log-level error 2>>"$DATA/serve.log" &
    SERVER=$!
    for _ in $(seq 100); do curl -sf "$URL/healthz" >/dev/null && return; sleep 0.1; done
    echo "the server did not start"; exit 1
}
trap '[ -n "$SERVER" ] && kill "$SERVER" 2>/dev/null || true' EXIT
rss() { awk '/VmRSS/ {print $2}' "/proc/$SERVER/status"; }
peak() { awk '/VmHWM/ {print $2}' "/proc/$SERVER/status"; }
start
echo "server RSS at start: $(rss) kB"

echo "== 1. slow clients: 500 connections, one header line a second, requestTimeout 5 s =="
"$PY" Tests/Load/slowloris.py $PORT 500 1 30 &
SLOW=$!
sleep 2
codes=""; worst=0
for _ in $(seq 10); do
    out=$(curl -s -o /dev/null -w '%{http_code} %{time_total}' -H "$AUTH" "$URL/v1/apps/com.example.field/config")
    codes+="${out%% *} "
    worst=$(awk -v a="$worst" -v b="${out##* }" 'BEGIN {print (b > a ? b : a)}')
    sleep 0.3
done
wait $SLOW && echo "every slow connection was closed" || echo "FAIL: slow connections left open"
echo "normal requests meanwhile: $codes(slowest ${worst}s); server RSS $(rss) kB"

echo "== 2. oversized requests: 200 × 8 MiB, 16 at a time =="
head -c $((8 << 20)) /dev/zero | tr '\0' 'a' >"$DATA/big.json"
seq 100 | xargs -P 16 -I{} curl -s -o /dev/null -w '%{http_code}\n' -H "$AUTH" -H 'Content-Type: application/json' \
    --data-binary @"$DATA/big.json" "$URL/v1/update-check" >"$DATA/announced.txt" || true
seq 100 | xargs -P 16 -I{} curl -s -o /dev/null -w '%{http_code}\n' -H "$AUTH" -H 'Transfer-Encoding: chunked' \
    --data-binary @"$DATA/big.json" "$URL/v1/policy/evaluate" >"$DATA/chunked.txt" || true
echo "announced length: $(sort "$DATA/announced.txt" | uniq -c | tr '\n' ' ')"
echo "chunked:          $(sort "$DATA/chunked.txt" | uniq -c | tr '\n' ' ')"
echo "server RSS $(rss) kB, peak so far $(peak) kB; healthz $(curl -s -o /dev/null -w '%{http_code}' "$URL/healthz")"

echo "== 3. reload storm: 100 SIGHUP reloads (50 broken) under wrk at 256 connections =="
CONFIG="$CATALOG/apps/com.example.fieldsync/config.plist"
cp "$CONFIG" "$DATA/good.plist"
metric() { curl -s "$URL/metrics" | awk -v name="$1" '$1 == name {print int($2)}'; }
wrk -t2 -c256 -d60s -s Tests/Load/consistency.lua -H "$AUTH" "$URL/v1/apps/com.example.fieldsync/config" \
    >"$DATA/storm.txt" &
WRK=$!
sleep 1
for i in $(seq 100); do
    before="$(metric mdmconf_catalog_generation)/$(metric mdmconf_catalog_reload_failures_total)"
    if [ $((i % 2)) -eq 0 ]; then
        printf '<plist><dict><key>LogLevel</key>' >"$CONFIG.tmp"   # broken XML
    else
        level=$([ $((i % 4)) -eq 1 ] && echo info || echo error)   # two good catalogs, each an allowed LogLevel
        sed "s/<string>warning<\/string>/<string>$level<\/string>/" "$DATA/good.plist" >"$CONFIG.tmp"
    fi
    mv "$CONFIG.tmp" "$CONFIG"
    kill -HUP "$SERVER"
    for _ in $(seq 50); do
        [ "$(metric mdmconf_catalog_generation)/$(metric mdmconf_catalog_reload_failures_total)" != "$before" ] && break
        sleep 0.05
    done
done
echo "after 100 reloads: generation $(metric mdmconf_catalog_generation), failed reloads $(metric mdmconf_catalog_reload_failures_total)"
cp "$DATA/good.plist" "$CONFIG"
wait $WRK || true
grep -E 'Requests/sec|requests in|Non-2xx|Socket errors|consistency|99%' "$DATA/storm.txt" || true
echo "server RSS $(rss) kB, peak $(peak) kB"

echo "== 4. SIGTERM under load: a 2-second upload in flight, wrk at 64 connections =="
printf '%s' '{"app": "com.example.field", "version": "3.2.1", "platform": "ios", "osVersion": "17.4", "channel": "stable", "locale": "en"}' >"$DATA/request.json"
wrk -t2 -c64 -d6s -H "$AUTH" "$URL/v1/apps/com.example.field/config" >"$DATA/term.txt" 2>&1 &
WRK=$!
curl -s -o "$DATA/upload.txt" -w '%{http_code}' --limit-rate 60 -H "$AUTH" --data-binary @"$DATA/request.json" \
    "$URL/v1/update-check" >"$DATA/upload-status.txt" &
UPLOAD=$!
sleep 1
stopped_at=$(date +%s.%N)
kill -TERM "$SERVER"
status=0; wait "$SERVER" || status=$?
exited=$(awk -v a="$stopped_at" -v b="$(date +%s.%N)" 'BEGIN {printf "%.2f", b - a}')
SERVER=""
wait $UPLOAD || true
wait $WRK || true
echo "server exit status $status, ${exited}s after SIGTERM"
echo "the upload in flight got HTTP $(cat "$DATA/upload-status.txt"): $(grep -o '"decision": "[a-z]*"' "$DATA/upload.txt" || echo none)"
grep -E 'requests in|Socket errors' "$DATA/term.txt" || true
