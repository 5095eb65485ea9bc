#!/usr/bin/env bash
# Events benchmark (issue 32), release build, on loopback, every number from one run of this script: POST
# /v1/checkin at 64 connections where every check-in changes its device's compliance (a device alternates between a
# compliant check-in, with the ETags it is served, and one on a version below the minimum), on SQLite and on
# PostgreSQL, without events and with one endpoint (the example receiver) subscribed to compliance changes, runs
# alternating (without, with, without, with, …). Target: with events within 10 % of without. With PostgreSQL, it then
# times the store's own batch procedures from pgbench, with and without the events' rows: the database's share.
#
#   bash Tests/Benchmarks/events.sh        # SECONDS_PER_RUN=10, ROUNDS=3 by default
#   RECEIVER_NICE=19 bash Tests/Benchmarks/events.sh   # the receiver at a low priority, standing in for one on
#                                                      # another machine (it shares these 2 cores otherwise)
#   RECEIVER=off bash Tests/Benchmarks/events.sh        # no receiver: every delivery is refused and put off, so the
#                                                      # run measures making and storing the events (and a body
#                                                      # made for each refused attempt)
#   STORES=sqlite bash Tests/Benchmarks/events.sh       # one store only
#   SERVE=folder bash Tests/Benchmarks/events.sh        # serve the catalog folder instead of a stored generation
#                                                      # (its compliance events' bodies are written at check-in)
#
# By default each server serves the catalog published into its store (`serve --from-store`), as a fleet does: a
# compliance event's body is then made at delivery from the stored check-in and the generation.
set -euo pipefail
cd "$(dirname "$0")/../.."
RUN=${SECONDS_PER_RUN:-10}
PYTHON=$(python3 -c 'import sys; print(sys.executable)')  # the real interpreter, not a shim

source Tests/Benchmarks/common.sh
need wrk:wrk curl:curl
ls /usr/lib/postgresql/*/bin/pgbench >/dev/null 2>&1 || command -v pgbench >/dev/null || need pgbench:postgresql pgbench:postgresql-contrib

swift build -c release --product mdmconf >/dev/null && swift build -c release --product mdmconf-server >/dev/null
swift build -c release --product webhook-receiver >/dev/null
BINDIR="$(swift build -c release --show-bin-path)"
BIN="$BINDIR/mdmconf"
D=$PWD/.build/bench-events; rm -rf "$D"; mkdir -p "$D"
PORT=18291; RECEIVER_PORT=18293
SERVER=""; RECEIVER_PID=""
PG="$D/pg"; PG_PORT=18292
cleanup() {
    [ -n "$SERVER" ] && kill "$SERVER" 2>/dev/null || true
    [ -n "$RECEIVER_PID" ] && kill "$RECEIVER_PID" 2>/dev/null || true
    bash Tests/pg-cluster.sh stop "$PG" 2>/dev/null || true
}
trap cleanup EXIT

source Tests/Benchmarks/wrk-common.sh
CATALOG="$D/catalog"
fleet_catalog "$CATALOG" "$PYTHON"
echo "whsec_$(head -c 32 /dev/urandom | base64)" > "$D/secret"
cp -r "$CATALOG" "$D/catalog-events"
cat > "$D/catalog-events/events.plist" <<PLIST
<?xml version="1.0" encoding="UTF-8"?>
<plist version="1.0"><dict><key>ops</key><dict>
<key>url</key><string>http://127.0.0.1:$RECEIVER_PORT/mdmconf</string>
<key>types</key><array><string>io.mdmconf.device.compliance.changed</string></array>
<key>secretFile</key><string>$D/secret</string>
</dict></dict></plist>
PLIST

SERVE=${SERVE:-store}
serve() {  # catalog store-url
    local source="$1"
    if [ "$SERVE" = store ] && [ "$2" != none ]; then
        "$BIN" publish "$1" --store "$2" --message bench >/dev/null
        source=--from-store
    fi
    "$BIN" serve "$source" --port $PORT --store "$2" --log-level warning 2>>"$D/serve.log" &
    SERVER=$!
    for _ in $(seq 300); do curl -sf "http://127.0.0.1:$PORT/healthz" >/dev/null && return; sleep 0.1; done
    echo "server did not start"; cat "$D/serve.log"; exit 1
}
stop() { kill "$SERVER"; wait "$SERVER" || true; SERVER=""; }

# The ETags each bench device is served (its variables make its bytes its own), for the compliant check-ins.
serve "$CATALOG" none
"$PYTHON" - "$PORT" "$D/flip.lua" <<'PY'
import http.client, sys
port, out = int(sys.argv[1]), sys.argv[2]
apps = ["com.example.field", "com.example.fieldnotes", "com.example.fieldsync"]
conn = http.client.HTTPConnection("127.0.0.1", port)
rows = []
for i in range(2000):
    device = f"bench-{i:05d}"
    etags = []
    for app in apps:
        conn.request("GET", f"/v1/apps/{app}/config?device={device}",
                      headers={"Authorization": "Bearer example-admin-token-c0ffee"})
        response = conn.getresponse(); response.read()
        etags.append(response.getheader("ETag").strip('"'))
    rows.append('{"%s","%s","%s"}' % tuple(etags))
with open(out, "w") as f:
    f.write("local etags = {" + ",\n".join(rows) + "}\n")
    f.write(r'''
local threads = 0
function setup(thread) threads = threads + 1; thread:set("id", threads); thread:set("count", 0) end
local state = {}
local n = 0
function init(args) count = 0 end
function request()
  -- Each thread has its own devices (those with index % 2 == id - 1, two threads), and each of its check-ins
  -- flips its device between compliant and not.
  n = n + 1
  local index = ((n * 7919) % 1000) * 2 + (id - 1)
  local device = string.format("bench-%05d", index)
  local e = etags[index + 1]
  local compliant = not state[index]
  state[index] = compliant
  local version = compliant and "3.2.1" or "1.0.0"
  local body = '{"device":"' .. device .. '","platform":"ios","osVersion":"17.4.1","deviceModel":"iPhone15,2",'
    .. '"locale":"en","timeZone":"Europe/Berlin","apps":['
    .. '{"app":"com.example.field","version":"' .. version .. '","build":"321","configETag":"\\"' .. e[1] .. '\\""},'
    .. '{"app":"com.example.fieldnotes","version":"3.2.1","configETag":"\\"' .. e[2] .. '\\""},'
    .. '{"app":"com.example.fieldsync","version":"1.0","configETag":"\\"' .. e[3] .. '\\""}]}'
  return wrk.format("POST", "/v1/checkin", {["Content-Type"] = "application/json",
    ["Authorization"] = "Bearer example-admin-token-c0ffee"}, body)
end
''')
PY
stop

if [ "${RECEIVER:-on}" != off ]; then
    nice -n "${RECEIVER_NICE:-0}" "$BINDIR/webhook-receiver" --port $RECEIVER_PORT --secret-file "$D/secret" >/dev/null 2>&1 &
    RECEIVER_PID=$!
fi

bash Tests/pg-cluster.sh init "$PG"
bash Tests/pg-cluster.sh start "$PG" $PG_PORT
PGBIN=$(bash Tests/pg-cluster.sh bindir)

echo "== check-ins that each change compliance, 64 connections, ${RUN} s runs, alternating, serving the $SERVE"
run=0
for store in ${STORES:-sqlite postgres}; do
    for round in $(seq "${ROUNDS:-3}"); do
        for mode in without with; do
            run=$((run + 1))
            if [ "$store" = sqlite ]; then url="sqlite:$D/fleet-$run.sqlite"; else
                "$PGBIN/createdb" -h 127.0.0.1 -p $PG_PORT -U mdmconf "fleet$run"
                url="postgres://mdmconf@127.0.0.1:$PG_PORT/fleet$run"
            fi
            [ "$mode" = with ] && catalog="$D/catalog-events" || catalog="$CATALOG"
            serve "$catalog" "$url"
            # A first pass gives every device its first state, so the measured one only flips.
            wrk -t2 -c64 -d2s -s "$D/flip.lua" "http://127.0.0.1:$PORT" >/dev/null
            out=$(wrk -t2 -c64 -d${RUN}s --latency -s "$D/flip.lua" "http://127.0.0.1:$PORT")
            summary "$store $mode events (round $round)" "$out"
            rps=$(grep -E '^Requests/sec' <<<"$out" | awk '{print $2}')
            if [ "$mode" = without ]; then without=$rps; else
                ratio=$("$PYTHON" -c "print(f'{$rps / $without:.2f}')")
                ratios="${ratios:-}$store round $round: $ratio"$'\n'
            fi
            if [ "$mode" = with ]; then
                sleep 2
                printf '    outbox 2 s later: %s\n' "$("$BIN" events list --store "$url" --limit 1 --format json \
                    | "$PYTHON" -c 'import json,sys; print(json.load(sys.stdin)["counts"])')"
            fi
            stop
        done
    done
done
echo "== with events / without, each round (target: at least 0.90)"
printf '%s' "$ratios"

# PostgreSQL alone: the store's own procedures called by pgbench (2 clients) with batches of 64 check-ins like the
# server's, with and without the watched states and their events (every state changed, one event each), and the
# cost of building the arguments alone (the wrapper without its CALL), which is taken off each.
if [[ " ${STORES:-sqlite postgres} " == *" postgres "* ]]; then
    "$PYTHON" - "$D" <<'PY'
import sys
out = sys.argv[1]
D = "'bench-' || lpad(((d + g) % 2000)::text, 5, '0')"
G = "generate_series(1, 64) AS g"
A = G + ", unnest(ARRAY['com.example.field', 'com.example.fieldnotes', 'com.example.fieldsync']) AS a"
def c(expr, typ, src=G): return (f"ARRAY(SELECT {expr} FROM {src})", typ)
devices = [c(D, "text"), c("'ios'", "text"), c("'17.4.1'", "text"), c("'iPhone15,2'", "text"), c("'en'", "text"),
           c("'Europe/Berlin'", "text"), c("NULL::bigint", "bigint"), c("t", "bigint"), c("t", "bigint"), c("'r'", "text")]
apps = [c(D, "text", A), c("a", "text", A), c("'3.2.1'", "text", A), c("'321'", "text", A), c("NULL::text", "text", A),
        c("'\"' || md5(a) || '\"'", "text", A), c("NULL::text", "text", A), c("NULL::bigint", "bigint", A),
        c("t", "bigint", A), c("NULL::text", "text", A), c("NULL::text", "text", A), c("NULL::text", "text", A)]
checkins = [c(D, "text"), c("t", "bigint"), c("'r'", "text"), c("repeat('x', 420)", "text")]
watched = [c(D, "text"), c("'compliance'", "text"), c("'v' || n", "text"), c("t", "bigint"),
           c("'evt_' || md5(random()::text)", "text"), c("'ops'", "text"),
           c("'io.mdmconf.device.compliance.changed'", "text"), c(D, "text"), c("''", "text"), c("t", "bigint"),
           c("'compliance'", "text"), c(D, "text"), c("1::bigint", "bigint")]
with open(f"{out}/bench-procedures.sql", "w") as f:
    for name, cols, proc in [("plain", devices + apps + checkins, "mdmconf_write_checkins"),
                             ("watched", devices + apps + checkins + watched, "mdmconf_write_checkins_watched")]:
        for suffix, call in [("", f"CALL {proc}(" + ", ".join(f"v{i}" for i in range(len(cols))) + ");"),
                             ("_args", "PERFORM 1;")]:
            # The time of each check-in is now, as the server's: the upserts keep the row with the later time.
            f.write(f"CREATE PROCEDURE bench_{name}{suffix}(d int, n bigint) LANGUAGE plpgsql AS $p$ DECLARE "
                    + "t bigint := extract(epoch FROM clock_timestamp())::bigint; "
                    + " ".join(f"v{i} {t}[];" for i, (_, t) in enumerate(cols)) + " BEGIN "
                    + " ".join(f"v{i} := {e};" for i, (e, _) in enumerate(cols)) + f" {call} END $p$;\n")
            with open(f"{out}/bench_{name}{suffix}.sql", "w") as script:
                script.write("\\set d random(0, 1999)\n\\set n random(1, 1000000000)\n"
                             f"CALL bench_{name}{suffix}(:d, :n);\n")
PY
    PGBENCH=("$PGBIN/pgbench" -h 127.0.0.1 -p $PG_PORT -U mdmconf -n -c 2 -j 2)
    "$PGBIN/psql" -h 127.0.0.1 -p $PG_PORT -U mdmconf -q -f "$D/bench-procedures.sql" "fleet$run"
    "${PGBENCH[@]}" -f "$D/bench_watched.sql" -T 2 "fleet$run" >/dev/null 2>&1  # every device and state stored once
    tps() { "${PGBENCH[@]}" -f "$D/bench_$1.sql" -T "$RUN" "fleet$run" 2>&1 | awk '/^tps/ {print $3}'; }
    plain=$(tps plain); plain_args=$(tps plain_args); watched=$(tps watched); watched_args=$(tps watched_args)
    echo "== PostgreSQL alone, the store's procedures from pgbench, batches of 64 check-ins, 2 clients"
    "$PYTHON" - "$plain" "$plain_args" "$watched" "$watched_args" <<'PY'
import sys
plain, plain_args, watched, watched_args = map(float, sys.argv[1:])
without = 1000 / plain - 1000 / plain_args
with_events = 1000 / watched - 1000 / watched_args
print(f"without events: {plain * 64:,.0f} check-ins/s; the arguments' time taken off, a batch every {without:.3f} ms "
      f"(arguments alone: {plain_args:,.0f} batches/s)")
print(f"with events:    {watched * 64:,.0f} check-ins/s; the arguments' time taken off, a batch every {with_events:.3f} ms "
      f"(arguments alone: {watched_args:,.0f} batches/s)")
print(f"the database's own ratio, with / without: {without / with_events:.2f}")
PY
fi
