#!/usr/bin/env bash
# Start-up cost of the file commands, side by side with `xmllint --noout` in one hyperfine run (release build,
# static Swift runtime, position-dependent, stripped: the build the README tells script authors to use).
#
#   bash Tests/Benchmarks/startup.sh          # needs hyperfine and xmllint (apt: hyperfine libxml2-utils)
set -euo pipefail
cd "$(dirname "$0")/../.."
source Tests/Benchmarks/common.sh
need hyperfine:hyperfine xmllint:libxml2-utils

D=.build/bench-startup; rm -rf "$D"; mkdir -p "$D"
script_mdmconf "$D/mdmconf"
CONFIG=Examples/app/configs/com.example.field.plist
SCHEMA=Examples/app/schema.xml
POLICY=Examples/update-policy/update-policy.plist
REQUEST=Examples/update-policy/requests/recommended-before-deadline.json
printf 'binary: %s bytes stripped; configuration: %s bytes\n' "$(stat -c %s "$D/mdmconf")" "$(stat -c %s "$CONFIG")"

hyperfine -N --warmup 30 --runs "${RUNS:-300}" -i \
    "xmllint --noout $CONFIG" \
    "$D/mdmconf --version" \
    "$D/mdmconf lint $CONFIG" \
    "$D/mdmconf validate --schema $SCHEMA $CONFIG" \
    "$D/mdmconf update-check --policy $POLICY --request $REQUEST" \
    --export-markdown "$D/startup.md" >/dev/null
cat "$D/startup.md"
