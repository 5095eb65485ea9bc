#!/usr/bin/env bash
# Runs one libFuzzer target with AddressSanitizer for a number of seconds, seeded from Examples/, the tests'
# fixtures and ../shared/corpus (read in place; the working corpus lives under .build/fuzz-corpus/TARGET).
#
#   bash Tests/Fuzz/run.sh TARGET [SECONDS]       # default 600
#
# A crash leaves crash-* in .build/fuzz-artifacts/TARGET; copy it to Tests/Fuzz/Regressions/TARGET/ and replay
# with: swift run mdmconf-fuzz TARGET Tests/Fuzz/Regressions/TARGET
set -euo pipefail
cd "$(dirname "$0")/../.."
target=${1:?target: xml-plist binary-plist json-plist specfile manifest update-policy url profile policy-query http-body android}
seconds=${2:-600}

swift build -c release --scratch-path .build/fuzz -Xswiftc -sanitize=fuzzer,address -Xswiftc -DFUZZING \
    --product mdmconf-fuzz 2>&1 | grep -v "Cannot export local symbol" | tail -1
BIN=.build/fuzz/release/mdmconf-fuzz

corpus=.build/fuzz-corpus/$target; artifacts=.build/fuzz-artifacts/$target
mkdir -p "$corpus" "$artifacts"
seeds=()
case $target in
    url|policy-query)
        # URL-shaped seeds: every string of the example profiles and the URL tests.
        grep -ohE '<string>[^<]{1,200}</string>' -r Examples ../shared/corpus 2>/dev/null | sed 's/<[^>]*>//g' \
            | sort -u | head -2000 | while IFS= read -r line; do printf '%s' "$line" >"$corpus/seed-$(printf '%s' "$line" | md5sum | cut -c1-12)"; done \
            || true
        ;;
    binary-plist)
        PY=$(python3 -c 'import sys; print(sys.executable)')
        "$PY" - "$corpus" <<'PY'
import plistlib, sys, glob, os, hashlib
for path in glob.glob('Examples/**/*.plist', recursive=True) + glob.glob('../shared/corpus/**/*.plist', recursive=True):
    try:
        value = plistlib.load(open(path, 'rb'))
        data = plistlib.dumps(value, fmt=plistlib.FMT_BINARY)
    except Exception:
        continue
    open(os.path.join(sys.argv[1], hashlib.md5(data).hexdigest()), 'wb').write(data)
PY
        ;;
    json-plist)
        # libFuzzer takes folders: the example JSON files are copied into the working corpus.
        find Examples -name '*.json' -exec cp {} "$corpus/" \;
        seeds=(Examples/update-policy/requests)
        ;;
    http-body)
        # Update requests and policy evaluation bodies (one with an inline profile).
        cp Examples/update-policy/requests/*.json "$corpus/"
        printf '%s' '{"query": {"type": "url", "arg": "https://ads.example.com/x", "at": "2026-03-10T09:00:00Z", "trace": true}}' >"$corpus/evaluate-url"
        printf '%s' '{"query": {"type": "wifi", "ssidHex": "414345", "hidden": true}}' >"$corpus/evaluate-wifi"
        PY=$(python3 -c 'import sys; print(sys.executable)')
        "$PY" - "$corpus" <<'PY'
import base64, json, sys
profile = open('Examples/device-policy/profiles/30-web-filter.mobileconfig', 'rb').read()
body = {"query": {"type": "url", "arg": "https://www.example.com/"},
        "profiles": [{"name": "inline.mobileconfig", "base64": base64.b64encode(profile).decode()}]}
open(sys.argv[1] + '/evaluate-inline', 'w').write(json.dumps(body))
body["profiles"] = [{"name": "inline.mobileconfig", "xml": profile.decode()}]
open(sys.argv[1] + '/evaluate-inline-xml', 'w').write(json.dumps(body))
PY
        ;;
    android)
        # Restrictions (the lint fixtures, the example app, the corpus's) and managed properties JSON.
        cp ../shared/corpus/manifests/android_*.xml "$corpus/" 2>/dev/null || true
        cp Examples/android/app/src/main/res/xml/app_restrictions.xml "$corpus/example.xml"
        "$(dirname "$0")/../../.build/debug/mdmconf" schema convert --to managed-properties \
            Examples/android/app/src/main/res/xml/app_restrictions.xml >"$corpus/example-managed-properties.json" 2>/dev/null || true
        seeds=(Tests/ConfigSchemaTests/AndroidFixtures/res/xml)
        ;;
    *) seeds=(Examples ../shared/corpus Tests/PropertyListTests/Fixtures) ;;
esac
existing=()
for seed in "${seeds[@]}"; do [ -e "$seed" ] && existing+=("$seed"); done

# A crash must end the run at once: the Swift backtracer would wait to symbolicate.
SWIFT_BACKTRACE=enable=no FUZZ_TARGET=$target ASAN_OPTIONS=detect_leaks=1 "$BIN" "$corpus" "${existing[@]}" \
    -max_total_time="$seconds" -max_len=65536 -rss_limit_mb=2048 -timeout=5 -artifact_prefix="$artifacts/" \
    -print_final_stats=1 2>&1 | grep -E "(DONE|INITED) +cov|stat::number_of_executed_units|stat::peak_rss_mb|ERROR|SUMMARY|Test unit written" \
    | tail -8 || true
