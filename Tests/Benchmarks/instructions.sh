#!/usr/bin/env bash
# Instructions per request on the hot paths, counted by callgrind (repeatable where seconds are not): the server
# runs under valgrind twice per path, answering FEW and then FEW + MANY requests sent one after another on one
# keep-alive connection; the difference of the two totals divided by MANY is one request's cost, with start-up and
# shutdown cancelled out. Everything the server process executes counts (event loop, parsing, the answer, the
# write); the kernel's side does not.
#
#   bash Tests/Benchmarks/instructions.sh [SERVER_BINARY]     # default: the release mdmconf-server; MANY=2000
#   KINDS="update-check POST" bash Tests/Benchmarks/instructions.sh   # only some paths (names as in the table)
set -euo pipefail
cd "$(dirname "$0")/../.."
FEW=${FEW:-100}
MANY=${MANY:-2000}
PYTHON=$(python3 -c 'import sys; print(sys.executable)')
source Tests/Benchmarks/common.sh
need valgrind:valgrind curl:curl
if [ $# -ge 1 ]; then
    BIN=$1
else
    swift build -c release --product mdmconf-server >/dev/null
    BIN="$(swift build -c release --show-bin-path)/mdmconf-server"
fi
D=$PWD/.build/bench-instructions; rm -rf "$D"; mkdir -p "$D"
# Without debug information: this machine's valgrind cannot read the DWARF 5 that Swift writes.
strip --strip-debug -o "$D/server" "$BIN"
BIN="$D/server"
PORT=18581
BODY='{"app": "com.example.field", "version": "3.0.2", "platform": "ios", "osVersion": "17.4", "deviceId": "ipad-0042"}'
ETAG=$(bash -c "$BIN serve Examples/catalog --port $PORT --store none --log-level warning 2>/dev/null & pid=\$!; \
    for _ in \$(seq 100); do curl -sf http://127.0.0.1:$PORT/healthz >/dev/null && break; sleep 0.1; done; \
    curl -sf -o /dev/null -D - -H 'Authorization: Bearer example-admin-token-c0ffee' \
    'http://127.0.0.1:$PORT/v1/apps/com.example.field/config?device=ipad-0042' | awk -F': ' 'tolower(\$1)==\"etag\" {print \$2}' | tr -d '\r'; \
    kill \$pid")

requests() {  # kind count: sends count requests of kind on one connection, reading each answer
    "$PYTHON" - "$PORT" "$1" "$2" "$ETAG" "$BODY" <<'PY'
import socket, sys
port, kind, count, etag, body = int(sys.argv[1]), sys.argv[2], int(sys.argv[3]), sys.argv[4], sys.argv[5]
admin = "Authorization: Bearer example-admin-token-c0ffee\r\n"
get = "GET /v1/apps/com.example.field/config?device=ipad-0042 HTTP/1.1\r\nHost: x\r\n"
request = {
    "config GET": get + admin + "\r\n",
    "config GET → 304": get + admin + f"If-None-Match: {etag}\r\n\r\n",
    "config GET, device token": "GET /v1/apps/com.example.field/config HTTP/1.1\r\nHost: x\r\n"
        "Authorization: Bearer example-device-token-iphone-0117\r\n\r\n",
    "update-check POST": "POST /v1/update-check HTTP/1.1\r\nHost: x\r\n" + admin
        + f"Content-Type: application/json\r\nContent-Length: {len(body)}\r\n\r\n{body}",
}[kind].encode()
connection = socket.create_connection(("127.0.0.1", port))
pending = b""
for _ in range(count):
    connection.sendall(request)
    while True:  # one whole answer: its head, then Content-Length bytes (304: none)
        head_end = pending.find(b"\r\n\r\n")
        if head_end >= 0:
            head = pending[:head_end].decode()
            length = 0
            for line in head.split("\r\n")[1:]:
                name, _, value = line.partition(":")
                if name.lower() == "content-length":
                    length = int(value)
            if len(pending) >= head_end + 4 + length:
                pending = pending[head_end + 4 + length:]
                break
        data = connection.recv(65536)
        if not data:
            sys.exit("closed")
        pending += data
PY
}

total() {  # kind count: the server's instruction total answering count requests of kind
    local out="$D/callgrind.$RANDOM"; LAST=$out
    valgrind --tool=callgrind --callgrind-out-file="$out" "$BIN" serve Examples/catalog --port $PORT --store none \
        --log-level warning 2>"$D/valgrind.log" &
    local pid=$!
    for _ in $(seq 600); do curl -sf "http://127.0.0.1:$PORT/healthz" >/dev/null && break; sleep 0.2; done
    requests "$1" "$2"
    kill -TERM $pid; wait $pid || true
    awk '/^summary:/ {print $2}' "$out"
}

printf '| path | instructions per request |\n| --- | ---: |\n'
IFS=';' read -r -a kinds <<<"${KINDS:-config GET;config GET → 304;config GET, device token;update-check POST}"
for kind in "${kinds[@]}"; do
    few=$(total "$kind" "$FEW")
    many=$(total "$kind" $((FEW + MANY)))
    printf '| %s | %s |\n' "$kind" "$(( (many - few) / MANY ))"
done
