#!/usr/bin/env bash
# `mdmconf simulate` driving `mdmconf serve` (issue 16), release build, on loopback, one run of this script:
#   1. 64 simulated devices launching back to back for RUN seconds (check-in, config fetch when stale, a foreground
#      refresh every 2nd launch), launches/s and latency as the simulator reports them, with the CPU the server
#      and the simulator each used;
#   2. wrk at 64 connections on the same endpoints (POST /v1/checkin of one app, conditional config GET → 304),
#      with the server's CPU, as the ceiling.
#
#   bash Tests/Benchmarks/simulate.sh        # SECONDS_PER_RUN=15 by default
set -euo pipefail
cd "$(dirname "$0")/../.."
RUN=${SECONDS_PER_RUN:-15}
command -v wrk >/dev/null || {
    SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO="sudo"
    $SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq wrk curl
}
swift build -c release --product mdmconf >/dev/null && swift build -c release --product mdmconf-server >/dev/null
BIN="$(swift build -c release --show-bin-path)/mdmconf"
D=$PWD/.build/bench-simulate; rm -rf "$D"; mkdir -p "$D"
PORT=18291
SERVER=""
trap '[ -n "$SERVER" ] && kill "$SERVER" 2>/dev/null || true' EXIT
cp -rL Examples/catalog "$D/catalog"
echo example-admin-token-c0ffee >"$D/admin.token"
"$BIN" serve "$D/catalog" --port $PORT --watch --store "sqlite:$D/fleet.sqlite" --log-level warning 2>>"$D/serve.log" &
SERVER=$!
for _ in $(seq 300); do curl -sf "http://127.0.0.1:$PORT/healthz" >/dev/null && break; sleep 0.1; done
HZ=$(getconf CLK_TCK)
cpu() { awk '{print $14 + $15}' "/proc/$SERVER/stat"; }
now() { date +%s.%N; }
share() {  # ticks-before ticks-after seconds: percent of one core
    awk -v a="$1" -v b="$2" -v s="$3" -v hz="$HZ" 'BEGIN { printf "%.0f%%", (b - a) / hz / s * 100 }'
}

# The fleet: 64 generated devices (sim-00001 …) written into the catalog, loaded by --watch; a first pass warms up.
"$BIN" simulate --server "http://127.0.0.1:$PORT" --catalog "$D/catalog" --devices 64 --generate-inventory \
    --token-file "$D/admin.token" >/dev/null
sleep 3  # let --watch notice the inventory's mtime once more, so no reload falls inside the measured run

echo "== mdmconf simulate: 64 devices, ${RUN}s =="
c0=$(cpu); t0=$(now)
/usr/bin/time -f '%U %S %e' -o "$D/sim.time" "$BIN" simulate --server "http://127.0.0.1:$PORT" --catalog "$D/catalog" \
    --devices 64 --duration "$RUN" --token-file "$D/admin.token" --seed 7 >"$D/sim.txt"
c1=$(cpu); t1=$(now)
secs=$(awk -v a="$t0" -v b="$t1" 'BEGIN { print b - a }')
cat "$D/sim.txt"
read -r su ss se <"$D/sim.time"
printf 'CPU over %.1f s: server %s of one core, simulator %s (2 cores = 200%%)\n' "$secs" "$(share "$c0" "$c1" "$secs")" \
    "$(awk -v u="$su" -v s="$ss" -v e="$se" 'BEGIN { printf "%.0f%%", (u + s) / e * 100 }')"

echo "== wrk, 64 connections, ${RUN}s each (2 threads), the same endpoints =="
source Tests/Benchmarks/wrk-common.sh
cat >"$D/checkin.lua" <<'LUA'
local n = 0
function request()
  n = n + 1
  local device = string.format("sim-%05d", (n % 64) + 1)
  local body = '{"device":"' .. device .. '","platform":"ios","osVersion":"17.4.1","deviceModel":"iPhone15,2",'
    .. '"locale":"en-US","timeZone":"America/New_York","apps":[{"app":"com.example.field","version":"3.2.1"}]}'
  return wrk.format("POST", "/v1/checkin", {["Content-Type"] = "application/json",
    ["Authorization"] = "Bearer example-admin-token-c0ffee"}, body)
end
LUA
ETAG=$(curl -s -o /dev/null -D - -H 'Authorization: Bearer example-admin-token-c0ffee' \
    "http://127.0.0.1:$PORT/v1/apps/com.example.field/config?device=sim-00001" | awk 'tolower($1) == "etag:" {print $2}' | tr -d '\r')
c0=$(cpu); t0=$(now)
out=$(wrk -t2 -c64 -d${RUN}s --latency -s "$D/checkin.lua" "http://127.0.0.1:$PORT/v1/checkin")
c1=$(cpu); t1=$(now)
summary "wrk check-in POST (1 app)" "$out"
echo "  server CPU $(share "$c0" "$c1" "$(awk -v a="$t0" -v b="$t1" 'BEGIN { print b - a }')")"
c0=$(cpu); t0=$(now)
out=$(wrk -t2 -c64 -d${RUN}s --latency -H 'Authorization: Bearer example-admin-token-c0ffee' -H "If-None-Match: $ETAG" \
    "http://127.0.0.1:$PORT/v1/apps/com.example.field/config?device=sim-00001")
c1=$(cpu); t1=$(now)
summary "wrk config GET If-None-Match (304)" "$out"
echo "  server CPU $(share "$c0" "$c1" "$(awk -v a="$t0" -v b="$t1" 'BEGIN { print b - a }')")"
