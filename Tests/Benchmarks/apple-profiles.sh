#!/usr/bin/env bash
# `mdmconf validate` of configuration profiles against Apple's YAML schemas, side by side with `xmllint --noout` of
# the same files in one hyperfine run (release build as script authors use it): one profile of 20 payloads cold (no
# id index, no compiled schema: every YAML file on the path is indexed and the profile's schemas imported) and warm,
# and 1,000 such profiles in one process.
#
#   bash Tests/Benchmarks/apple-profiles.sh     # needs hyperfine and xmllint, and the corpus copy of
#                                               # apple/device-management beside the project (APPLE=… to point elsewhere)
set -euo pipefail
cd "$(dirname "$0")/../.."
source Tests/Benchmarks/common.sh
need hyperfine:hyperfine xmllint:libxml2-utils
APPLE=${APPLE:-$(cd .. && pwd)/shared/corpus/apple-device-management}
[ -d "$APPLE/mdm/profiles" ] || { echo "no apple/device-management at $APPLE" >&2; exit 66; }

D=.build/bench-apple; rm -rf "$D"; mkdir -p "$D/many"
script_mdmconf "$D/mdmconf"
# 20 payloads: the example kiosk profiles' payloads (Wi-Fi, restrictions, web filter, app lock, VPN), repeated with
# fresh identifiers, under one top level.
python3 - "$D/profile.mobileconfig" <<'PY'
import plistlib, sys, uuid, glob
payloads = []
for path in sorted(glob.glob("Examples/catalog/profiles/*.mobileconfig")):
    with open(path, "rb") as handle:
        payloads += [p for p in plistlib.load(handle)["PayloadContent"] if p["PayloadType"] != "com.apple.app.lock"]
content = []
for index in range(20):
    payload = dict(payloads[index % len(payloads)])
    payload.pop("MDMConfSchedule", None)
    payload["PayloadIdentifier"] = f"com.example.bench.{index}"
    payload["PayloadUUID"] = str(uuid.UUID(int=index + 1)).upper()
    content.append(payload)
profile = {"PayloadType": "Configuration", "PayloadIdentifier": "com.example.bench", "PayloadVersion": 1,
           "PayloadUUID": str(uuid.UUID(int=1000)).upper(), "PayloadDisplayName": "Bench", "PayloadContent": content}
with open(sys.argv[1], "wb") as handle:
    plistlib.dump(profile, handle)
PY
for i in $(seq 1 1000); do cp "$D/profile.mobileconfig" "$D/many/p$i.mobileconfig"; done
export MDMCONF_SCHEMA_PATH="$APPLE" XDG_CACHE_HOME="$PWD/$D/cache"
"$D/mdmconf" validate "$D/profile.mobileconfig" --platform iOS --os-version 17.4 --enrollment supervised | tail -n 1
printf 'profile: %s bytes, 20 payloads; schema files on the path: %s\n' "$(stat -c %s "$D/profile.mobileconfig")" \
    "$(find "$APPLE" -name '*.yaml' | wc -l)"

hyperfine -N --runs "${RUNS_COLD:-20}" -i --prepare "rm -rf $D/cache" \
    "xmllint --noout $D/profile.mobileconfig" \
    "$D/mdmconf validate $D/profile.mobileconfig --platform iOS --os-version 17.4 --enrollment supervised" \
    --export-markdown "$D/cold.md" >/dev/null
echo "cold (no index, no compiled schema):"
cat "$D/cold.md"
echo "warm:"
hyperfine -N --warmup 5 --runs "${RUNS:-50}" -i \
    "xmllint --noout $D/profile.mobileconfig" \
    "$D/mdmconf validate $D/profile.mobileconfig --platform iOS --os-version 17.4 --enrollment supervised" \
    --export-markdown "$D/one.md" >/dev/null
cat "$D/one.md"
hyperfine --warmup 1 --runs "${RUNS_MANY:-5}" -i \
    "xmllint --noout $D/many/*.mobileconfig" \
    "$D/mdmconf validate $D/many --platform iOS --os-version 17.4 --enrollment supervised" \
    --export-markdown "$D/many.md" >/dev/null
cat "$D/many.md"

# The same two comparisons interleaved: hyperfine's blocks above time every run of one command, then every run of
# the other, so a burst of load on this shared 2-core machine lands on one side. Here each round times a few runs
# of both, the rounds alternate, and the ratio is of the medians over all rounds.
ROUNDS=${ROUNDS:-12}
for round in $(seq 1 "$ROUNDS"); do
    hyperfine -N --warmup 2 --runs 5 -i \
        "xmllint --noout $D/profile.mobileconfig" \
        "$D/mdmconf validate $D/profile.mobileconfig --platform iOS --os-version 17.4 --enrollment supervised" \
        --export-json "$D/one-$round.json" >/dev/null
    hyperfine --runs 1 -i \
        "xmllint --noout $D/many/*.mobileconfig" \
        "$D/mdmconf validate $D/many --platform iOS --os-version 17.4 --enrollment supervised" \
        --export-json "$D/many-$round.json" >/dev/null
done
echo "interleaved ($ROUNDS rounds; medians):"
python3 - "$D" "$ROUNDS" <<'PY'
import json, statistics, sys
folder, rounds = sys.argv[1], int(sys.argv[2])
for name, label in (("one", "one profile, warm"), ("many", "1,000 profiles")):
    times = [[], []]
    for round in range(1, rounds + 1):
        with open(f"{folder}/{name}-{round}.json") as handle:
            for side, result in enumerate(json.load(handle)["results"]):
                times[side] += result["times"]
    xmllint, mdmconf = (statistics.median(side) * 1000 for side in times)
    print(f"| {label} | xmllint {xmllint:.1f} ms | mdmconf {mdmconf:.1f} ms | {mdmconf / xmllint:.2f}× |")
PY
