#!/usr/bin/env bash
# Instructions per request on the hot paths, counted by callgrind (repeatable where seconds are not): the server
# runs under valgrind twice per path, answering FEW and then FEW + MANY requests sent one after another on one
# keep-alive connection; the difference of the two totals divided by MANY is one request's cost, with start-up and
# shutdown cancelled out. Everything the server process executes counts (event loop, parsing, the answer, the
# write); the kernel's side does not.
#
#   bash Tests/Benchmarks/instructions.sh [SERVER_BINARY]     # default: the release mdmconf-server; MANY=2000
#   KINDS="update-check POST" bash Tests/Benchmarks/instructions.sh   # only some paths (names as in the table)
#
# The check-in kinds store into a new SQLite file, each check-in flipping its device's compliance (an app version
# below the minimum, then not). With "events", one endpoint receives compliance changes; nothing listens at its
# address and `--event-retry-base 3600` puts each refused delivery off past the run, so the count is making and
# storing each event; "events, stored generation" serves the events catalog published into the store, so each
# compliance event keeps no body (it is made at delivery, after the run). The writer thread counts too (one check-in a transaction: they come one after another), and
# so do the dispatcher's reads of the outbox (every 250 ms while nothing is due: a share that grows with the run's
# length, not its requests) and, serving a stored generation, the reads that follow the store's generations and
# rollouts (their share moved the total by ±50,000 a check-in between runs: compare that kind's functions, such as
# the route's `accept`, in the callgrind files kept in .build/bench-instructions).
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
# The ETags ipad-0042 is served (the config GETs' If-None-Match, and the check-ins' configETag of both apps).
ETAGS=$(bash -c "$BIN serve Examples/catalog --port $PORT --store none --log-level warning 2>/dev/null & pid=\$!; \
    for _ in \$(seq 100); do curl -sf http://127.0.0.1:$PORT/healthz >/dev/null && break; sleep 0.1; done; \
    for app in com.example.field com.example.fieldsync; do curl -sf -o /dev/null -D - \
    -H 'Authorization: Bearer example-admin-token-c0ffee' \
    \"http://127.0.0.1:$PORT/v1/apps/\$app/config?device=ipad-0042\" | awk -F': ' 'tolower(\$1)==\"etag\" {print \$2}' | tr -d '\r'; \
    done; kill \$pid")
ETAG=$(sed -n 1p <<<"$ETAGS")
ETAG_SYNC=$(sed -n 2p <<<"$ETAGS")

# The example catalog with one endpoint that receives compliance changes (no receiver behind it).
cp -rL Examples/catalog "$D/catalog-events"
echo "whsec_$(head -c 32 /dev/urandom | base64)" >"$D/secret"
cat >"$D/catalog-events/events.plist" <<PLIST
<?xml version="1.0" encoding="UTF-8"?>
<plist version="1.0"><dict><key>ops</key><dict>
<key>url</key><string>http://127.0.0.1:9/mdmconf</string>
<key>types</key><array><string>io.mdmconf.device.compliance.changed</string></array>
<key>secretFile</key><string>$D/secret</string>
</dict></dict></plist>
PLIST

requests() {  # kind count: sends count requests of kind on one connection, reading each answer
    "$PYTHON" - "$PORT" "$1" "$2" "$ETAG" "$BODY" "$ETAG_SYNC" <<'PY'
import json, socket, sys
port, kind, count, etag, body, etag_sync = int(sys.argv[1]), sys.argv[2], int(sys.argv[3]), sys.argv[4], sys.argv[5], sys.argv[6]
admin = "Authorization: Bearer example-admin-token-c0ffee\r\n"
get = "GET /v1/apps/com.example.field/config?device=ipad-0042 HTTP/1.1\r\nHost: x\r\n"
request = {
    "config GET": get + admin + "\r\n",
    "config GET → 304": get + admin + f"If-None-Match: {etag}\r\n\r\n",
    "config GET, device token": "GET /v1/apps/com.example.field/config HTTP/1.1\r\nHost: x\r\n"
        "Authorization: Bearer example-device-token-iphone-0117\r\n\r\n",
    "update-check POST": "POST /v1/update-check HTTP/1.1\r\nHost: x\r\n" + admin
        + f"Content-Type: application/json\r\nContent-Length: {len(body)}\r\n\r\n{body}",
}.get(kind, "").encode()
def check_in(n):  # every app holding its configuration, the field app alternately below the minimum and current
    text = json.dumps({"device": "ipad-0042", "platform": "ios", "osVersion": "17.4.1", "apps": [
        {"app": "com.example.field", "version": "1.0.0" if n % 2 else "3.2.1", "configETag": etag},
        {"app": "com.example.fieldsync", "version": "1.0", "configETag": etag_sync}]})
    return ("POST /v1/checkin HTTP/1.1\r\nHost: x\r\n" + admin
            + f"Content-Type: application/json\r\nContent-Length: {len(text)}\r\n\r\n{text}").encode()
connection = socket.create_connection(("127.0.0.1", port))
pending = b""
for n in range(count):
    connection.sendall(check_in(n) if kind.startswith("check-in") else request)
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
    local options=(Examples/catalog --store none)
    case "$1" in
    "check-in POST, SQLite") options=(Examples/catalog --store "sqlite:$out.sqlite") ;;
    "check-in POST, SQLite, events")
        options=("$D/catalog-events" --store "sqlite:$out.sqlite" --event-retry-base 3600) ;;
    "check-in POST, SQLite, events, stored generation")
        "$BIN" publish "$D/catalog-events" --store "sqlite:$out.sqlite" --message bench >/dev/null
        options=(--from-store --store "sqlite:$out.sqlite" --event-retry-base 3600) ;;
    esac
    valgrind --tool=callgrind --callgrind-out-file="$out" "$BIN" serve "${options[@]}" --port $PORT \
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
