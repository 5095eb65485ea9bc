#!/usr/bin/env bash
# Rollout benchmark (issue 32), release build, on loopback, every number from one run of this script: what a
# rollout that splits the fleet costs the answers that pick a generation per device. Two `serve --from-store`
# servers on two SQLite stores holding the same two generations: in one, generation 2 went to every device; in
# the other it is rolling out at 50 % (each request hashes its device to choose). wrk at 64 connections on the
# config GET and the update check of a device, alternating (all at once, rolling, all at once, rolling).
#
#   bash Tests/Benchmarks/rollout.sh        # SECONDS_PER_RUN=10 by default
set -euo pipefail
cd "$(dirname "$0")/../.."
RUN=${SECONDS_PER_RUN:-10}

source Tests/Benchmarks/common.sh
need wrk:wrk curl:curl

swift build -c release --product mdmconf >/dev/null && swift build -c release --product mdmconf-server >/dev/null
BIN="$(swift build -c release --show-bin-path)/mdmconf"
D=$PWD/.build/bench-rollout; rm -rf "$D"; mkdir -p "$D"
PIDS=()
cleanup() { for pid in "${PIDS[@]}"; do kill "$pid" 2>/dev/null || true; done; }
trap cleanup EXIT
source Tests/Benchmarks/wrk-common.sh

cp -rL Examples/catalog "$D/v1"
cp -rL Examples/catalog "$D/v2"
sed -i 's|<integer>443</integer>|<integer>8443</integer>|' "$D/v2/apps/com.example.field/config.plist"
declare -A PORTS=([whole]=18301 [rolling]=18302)
for store in whole rolling; do
    "$BIN" publish "$D/v1" --store "sqlite:$D/$store.db" >/dev/null
    rollout=(); [ "$store" = rolling ] && rollout=(--rollout 50,100)
    "$BIN" publish "$D/v2" --store "sqlite:$D/$store.db" "${rollout[@]}" >/dev/null
    "$BIN" serve --from-store --store "sqlite:$D/$store.db" --port "${PORTS[$store]}" --log-level warning \
        2>>"$D/serve.log" &
    PIDS+=($!)
done
for port in "${PORTS[@]}"; do
    for _ in $(seq 1 100); do curl -fsS "http://127.0.0.1:$port/readyz" >/dev/null 2>&1 && break; sleep 0.1; done
done
# ipad-0042 is in the rollout's 50 %: the rolling server hashes it and answers from generation 2, as the other.
for store in whole rolling; do
    curl -fsS -D - -o /dev/null -H "Authorization: Bearer example-admin-token-c0ffee" \
        "http://127.0.0.1:${PORTS[$store]}/v1/apps/com.example.field/config?device=ipad-0042" \
        | tr -d '\r' | grep -i '^X-MDMConf-Catalog-Generation' | sed "s/^/$store: /"
done
update_check_lua "$D/update.lua"  # ipad-0042's update check
echo "== $(date -u +%FT%TZ), ${RUN} s runs, 64 connections =="
for round in 1 2; do
    for store in whole rolling; do
        base="http://127.0.0.1:${PORTS[$store]}"
        out=$(wrk -t2 -c64 -d"${RUN}s" --latency -H "Authorization: Bearer example-admin-token-c0ffee" \
            "$base/v1/apps/com.example.field/config?device=ipad-0042")
        summary "config GET, $store ($round)" "$out"
        out=$(wrk -t2 -c64 -d"${RUN}s" --latency -s "$D/update.lua" "$base/v1/update-check")
        summary "update check, $store ($round)" "$out"
    done
done
