#!/usr/bin/env bash
# Config GET over TLS (issue 14), release build, on loopback: `mdmconf serve --dev-cert` next to nginx serving the
# same configuration bytes over TLS with the same certificate and key, wrk at 64 connections (HTTP/1.1 over TLS,
# keep-alive: each connection's handshake happens once), and the plain-HTTP numbers of the same run for scale.
#
#   bash Tests/Benchmarks/serve-tls.sh        # SECONDS_PER_RUN=10 by default
set -euo pipefail
cd "$(dirname "$0")/../.."
RUN=${SECONDS_PER_RUN:-10}
source Tests/Benchmarks/common.sh
need wrk:wrk nginx:nginx curl:curl
swift build -c release --product mdmconf >/dev/null && swift build -c release --product mdmconf-server >/dev/null
BIN="$(swift build -c release --show-bin-path)"
DATA=$PWD/.build/bench-serve-tls; rm -rf "$DATA"; mkdir -p "$DATA/www"
PORT=18381; PLAIN_PORT=18382; NGINX_PORT=18383; NGINX_PLAIN=18384
AUTH="Authorization: Bearer example-admin-token-c0ffee"
CONFIG="/v1/apps/com.example.field/config?device=ipad-0042"
pids=()
cleanup() {
    for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
    [ -f "$DATA/nginx.pid" ] && kill "$(cat "$DATA/nginx.pid")" 2>/dev/null || true
}
trap cleanup EXIT

"$BIN/mdmconf" serve Examples/catalog --store none --port $PORT --dev-cert "$DATA/cert" --log-level warning 2>"$DATA/serve.log" &
pids+=($!)
"$BIN/mdmconf" serve Examples/catalog --store none --port $PLAIN_PORT --log-level warning 2>"$DATA/plain.log" &
pids+=($!)
for _ in $(seq 100); do curl -sf --cacert "$DATA/cert/ca.pem" "https://localhost:$PORT/healthz" >/dev/null && break; sleep 0.1; done
curl -sf --cacert "$DATA/cert/ca.pem" -H "$AUTH" "https://localhost:$PORT$CONFIG" >"$DATA/www/config.plist"

cat >"$DATA/nginx.conf" <<NGINX
worker_processes auto;
pid $DATA/nginx.pid;
error_log $DATA/nginx-error.log;
events { worker_connections 1024; }
http {
    access_log off;
    types { application/x-plist plist; }
    server {
        listen 127.0.0.1:$NGINX_PORT ssl http2;
        ssl_certificate $DATA/cert/server.pem;
        ssl_certificate_key $DATA/cert/server-key.pem;
        ssl_protocols TLSv1.2 TLSv1.3;
        location / { root $DATA/www; etag on; }
    }
    server {
        listen 127.0.0.1:$NGINX_PLAIN;
        location / { root $DATA/www; etag on; }
    }
}
NGINX
nginx -c "$DATA/nginx.conf"
sleep 0.5
curl -sf --cacert "$DATA/cert/ca.pem" -o /dev/null "https://localhost:$NGINX_PORT/config.plist"

source Tests/Benchmarks/wrk-common.sh
echo "== config GET, 64 connections, ${RUN}s each (2 wrk threads), same bytes, same certificate =="
summary "nginx, TLS" "$(wrk -t2 -c64 -d${RUN}s --latency "https://localhost:$NGINX_PORT/config.plist")"
summary "mdmconf serve, TLS" "$(wrk -t2 -c64 -d${RUN}s --latency -H "$AUTH" "https://localhost:$PORT$CONFIG")"
summary "nginx, plain HTTP" "$(wrk -t2 -c64 -d${RUN}s --latency "http://127.0.0.1:$NGINX_PLAIN/config.plist")"
summary "mdmconf serve, plain HTTP" "$(wrk -t2 -c64 -d${RUN}s --latency -H "$AUTH" "http://127.0.0.1:$PLAIN_PORT$CONFIG")"
echo "== new TLS connections: 200 sequential curl requests (handshake each) =="
for target in "nginx https://localhost:$NGINX_PORT/config.plist" "mdmconf https://localhost:$PORT$CONFIG"; do
    set -- $target
    start=$(date +%s.%N)
    for _ in $(seq 200); do curl -sf --cacert "$DATA/cert/ca.pem" -H "$AUTH" -o /dev/null "$2"; done
    end=$(date +%s.%N)
    printf '%-40s %8.2f ms per request with its handshake\n' "$1" "$(echo "($end - $start) * 1000 / 200" | bc -l)"
done
