#!/usr/bin/env bash
# `mdmconf validate` of 10,000 Android managed configurations (JSON) against the example app's app_restrictions.xml,
# side by side with 10,000 plist configurations holding the same values (the XML plist form of each JSON file) against
# the same schema, each set in one process, in one hyperfine run (release build as script authors use it). The issue's
# target: the Android run within 1.5x the plist run.
#
#   bash Tests/Benchmarks/android-configs.sh      # needs hyperfine
set -euo pipefail
cd "$(dirname "$0")/../.."
source Tests/Benchmarks/common.sh
need hyperfine:hyperfine

D=.build/bench-android; rm -rf "$D"; mkdir -p "$D/json" "$D/plist"
script_mdmconf "$D/mdmconf"
SCHEMA=Examples/android/app/src/main/res/xml/app_restrictions.xml
# 10,000 valid configurations with varied values: one to three accounts, every choice, a device tag each.
python3 - "$D" <<'PY'
import json, plistlib, random, sys
random.seed(7)
out = sys.argv[1]
levels = ["error", "warning", "info", "debug"]
scopes = ["contacts", "calendar", "files"]
for index in range(10000):
    config = {
        "accounts": [
            {"server": f"sync{n}.example.com", "port": random.choice([443, 8443]), "use_ssl": random.random() < 0.9}
            for n in range(random.randint(1, 3))
        ],
        "log_level": random.choice(levels),
        "sync_scopes": random.sample(scopes, random.randint(1, 3)),
        "enable_telemetry": random.random() < 0.5,
        "device_tag": f"field-team-{index:05d}",
    }
    with open(f"{out}/json/c{index:05d}.json", "w") as handle:
        json.dump(config, handle, indent=2)
    with open(f"{out}/plist/c{index:05d}.plist", "wb") as handle:
        plistlib.dump(config, handle)
PY
printf 'JSON: %s bytes in 10,000 files; plist: %s bytes\n' "$(cat "$D"/json/*.json | wc -c)" "$(cat "$D"/plist/*.plist | wc -c)"
"$D/mdmconf" validate --schema "$SCHEMA" "$D/json" | tail -n 1
"$D/mdmconf" validate --schema "$SCHEMA" "$D/plist" | tail -n 1

hyperfine --warmup 1 --runs "${RUNS:-10}" \
    -n "plist: 10,000 configurations" "$D/mdmconf validate --schema $SCHEMA $D/plist" \
    -n "Android JSON: 10,000 configurations" "$D/mdmconf validate --schema $SCHEMA $D/json" \
    --export-markdown "$D/results.md" >/dev/null
cat "$D/results.md"
