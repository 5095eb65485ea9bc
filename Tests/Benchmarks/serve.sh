#!/usr/bin/env bash
# `mdmconf serve` load benchmark (issue 6), release build, on loopback, side by side with nginx serving the same
# configuration bytes as a static file:
#   1. config GET at 64 connections: requests/s and p99, mdmconf vs nginx (target: ≥ ½ of nginx, p99 < 5 ms);
#   2. update-check POST at 64 connections (target ≥ 20,000 requests/s);
#   3. a long run at 256 connections (default 300 s; SOAK=seconds to change) with the server's RSS sampled every
#      10 s (target: flat memory, zero errors).
#
#   bash Tests/Benchmarks/serve.sh            # SECONDS_PER_RUN=10 SOAK=300 by default
set -euo pipefail
cd "$(dirname "$0")/../.."
RUN=${SECONDS_PER_RUN:-10}
SOAK=${SOAK:-300}

source Tests/Benchmarks/common.sh
need wrk:wrk nginx:nginx curl:curl

swift build -c release --product mdmconf >/dev/null && swift build -c release --product mdmconf-server >/dev/null
BIN="$(swift build -c release --show-bin-path)"
DATA=.build/bench-serve; rm -rf "$DATA"; mkdir -p "$DATA/www"
PORT=18181; NGINX_PORT=18182
AUTH="Authorization: Bearer example-admin-token-c0ffee"
CONFIG="/v1/apps/com.example.field/config?device=ipad-0042"

"$BIN/mdmconf" serve Examples/catalog --port $PORT --log-level warning 2>"$DATA/serve.log" &
SERVER=$!
cleanup() { kill "$SERVER" 2>/dev/null || true; [ -f "$DATA/nginx.pid" ] && kill "$(cat "$DATA/nginx.pid")" 2>/dev/null || true; }
trap cleanup EXIT
for _ in $(seq 50); do curl -sf "http://127.0.0.1:$PORT/healthz" >/dev/null && break; sleep 0.1; done

# The same bytes for nginx, served as a static file with the same content type.
curl -sf -H "$AUTH" "http://127.0.0.1:$PORT$CONFIG" >"$DATA/www/config.plist"
cat >"$DATA/nginx.conf" <<NGINX
worker_processes auto;
pid $PWD/$DATA/nginx.pid;
error_log $PWD/$DATA/nginx-error.log;
events { worker_connections 1024; }
http {
    access_log off;
    types { application/x-plist plist; }
    server {
        listen 127.0.0.1:$NGINX_PORT;
        location / { root $PWD/$DATA/www; etag on; }
    }
}
NGINX
nginx -c "$PWD/$DATA/nginx.conf"
sleep 0.5

source Tests/Benchmarks/wrk-common.sh
update_check_lua "$DATA/update-check.lua"

echo "== config GET, 64 connections, ${RUN}s each (2 wrk threads) =="
summary "nginx static file" "$(wrk -t2 -c64 -d${RUN}s --latency "http://127.0.0.1:$NGINX_PORT/config.plist")"
summary "mdmconf serve (device config)" "$(wrk -t2 -c64 -d${RUN}s --latency -H "$AUTH" "http://127.0.0.1:$PORT$CONFIG")"
summary "mdmconf serve (default config)" "$(wrk -t2 -c64 -d${RUN}s --latency -H "$AUTH" "http://127.0.0.1:$PORT/v1/apps/com.example.field/config")"

echo "== update-check POST, 64 connections, ${RUN}s =="
summary "mdmconf serve (update-check)" "$(wrk -t2 -c64 -d${RUN}s --latency -s "$DATA/update-check.lua" "http://127.0.0.1:$PORT/v1/update-check")"

echo "== soak: config GET, 256 connections, ${SOAK}s; server RSS every 10 s =="
rss() { awk '/VmRSS/ {print $2}' "/proc/$SERVER/status"; }
echo "RSS before: $(rss) kB"
wrk -t2 -c256 -d${SOAK}s --latency -H "$AUTH" "http://127.0.0.1:$PORT$CONFIG" >"$DATA/soak.txt" &
WRK=$!
samples=()
while kill -0 $WRK 2>/dev/null; do sleep 10; kill -0 $WRK 2>/dev/null && samples+=("$(rss)"); done
wait $WRK || true
echo "RSS samples (kB): ${samples[*]}"
echo "RSS after: $(rss) kB"
summary "mdmconf serve (soak)" "$(cat "$DATA/soak.txt")"
