#!/usr/bin/env bash
# Replicas following a store (issue 17), release build, on loopback: two `mdmconf serve --from-store` processes on
# one throw-away PostgreSQL cluster, wrk at 64 connections on each (Tests/Load/consistency.lua: no answer may pair
# one generation with two bodies), and 20 publishes through `mdmconf publish` meanwhile; then how long each
# publish took to reach both replicas.
#
#   bash Tests/Load/replicas.sh        # SECONDS_PER_RUN=25 by default
set -euo pipefail
cd "$(dirname "$0")/../.."
RUN=${SECONDS_PER_RUN:-25}
command -v wrk >/dev/null || {
    SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO="sudo"
    $SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq wrk curl
}
swift build -c release --product mdmconf >/dev/null && swift build -c release --product mdmconf-server >/dev/null
BIN="$(swift build -c release --show-bin-path)/mdmconf"
D=$PWD/.build/load-replicas; rm -rf "$D"; mkdir -p "$D"
PG="$D/pg"; PG_PORT=18391
PIDS=()
cleanup() {
    for pid in "${PIDS[@]}"; do kill "$pid" 2>/dev/null || true; done
    bash Tests/pg-cluster.sh stop "$PG" 2>/dev/null || true
}
trap cleanup EXIT
bash Tests/pg-cluster.sh init "$PG" >/dev/null
bash Tests/pg-cluster.sh start "$PG" $PG_PORT >/dev/null
"$(bash Tests/pg-cluster.sh bindir)/createdb" -h 127.0.0.1 -p $PG_PORT -U mdmconf fleet
STORE="postgres://mdmconf@127.0.0.1:$PG_PORT/fleet"
cp -rL Examples/catalog "$D/catalog"
CONFIG="$D/catalog/apps/com.example.fieldsync/config.plist"
cp "$CONFIG" "$D/good.plist"
"$BIN" publish "$D/catalog" --store "$STORE" --message initial >/dev/null
AUTH="Authorization: Bearer example-admin-token-c0ffee"
PORTS=(18392 18393)
for port in "${PORTS[@]}"; do
    "$BIN" serve --from-store --store "$STORE" --port "$port" --replica "r$port" --log-level warning 2>>"$D/serve-$port.log" &
    PIDS+=($!)
    for _ in $(seq 100); do curl -sf "http://127.0.0.1:$port/healthz" >/dev/null && break; sleep 0.1; done
done
generation() { curl -s "http://127.0.0.1:$1/readyz" | sed -n 's/.*"catalogGeneration": \([0-9]*\).*/\1/p'; }
WRKS=()
for port in "${PORTS[@]}"; do
    wrk -t1 -c64 -d${RUN}s -s Tests/Load/consistency.lua -H "$AUTH" \
        "http://127.0.0.1:$port/v1/apps/com.example.fieldsync/config" >"$D/wrk-$port.txt" &
    WRKS+=($!)
done
sleep 2
lags=()
for i in $(seq 20); do
    level=$([ $((i % 2)) -eq 1 ] && echo info || echo error)  # alternate between two allowed LogLevels
    sed "s/<string>warning<\/string>/<string>$level<\/string>/" "$D/good.plist" >"$CONFIG"
    "$BIN" publish "$D/catalog" --store "$STORE" --message "change $i" >/dev/null
    published=$(date +%s%N)
    want=$((i + 1))
    for port in "${PORTS[@]}"; do
        for _ in $(seq 500); do [ "$(generation "$port")" -ge "$want" ] && break; sleep 0.002; done
    done
    lags+=($(( ($(date +%s%N) - published) / 1000000 )))
    sleep 0.5
done
for pid in "${WRKS[@]}"; do wait "$pid" || true; done
for port in "${PORTS[@]}"; do
    echo "== replica on $port (generation $(generation "$port")) =="
    grep -E 'Requests/sec|requests in|Non-2xx|Socket errors|consistency|99%' "$D/wrk-$port.txt" || true
done
sorted=$(printf '%s\n' "${lags[@]}" | sort -n)
echo "publish → served by both replicas, 20 publishes under load: median $(sed -n 10p <<<"$sorted") ms, max $(tail -1 <<<"$sorted") ms (includes the readiness polling of this script)"
