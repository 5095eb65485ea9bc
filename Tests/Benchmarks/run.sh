#!/usr/bin/env bash
# mdmconf benchmarks: release build, side by side with the peer tools, on generated inputs.
#
#   bash Tests/Benchmarks/run.sh            # reading: 1 KB, 100 KB, 10 MB plists and 10,000 small files
#
# Peers: xmllint --noout (libxml2-utils), plutil -lint (ships with the Swift toolchain), Python's
# plistlib.load (the real interpreter, not a wrapper). Each command is timed end to end by hyperfine,
# process start included; the table gives medians, MB/s and each peer's time relative to mdmconf.
set -euo pipefail
cd "$(dirname "$0")/../.."

source Tests/Benchmarks/common.sh
need hyperfine:hyperfine xmllint:libxml2-utils
PYTHON=$(python3 -c 'import sys; print(sys.executable)')
PLUTIL=$(command -v plutil || true)

swift build -c release --static-swift-stdlib --product mdmconf -Xlinker -no-pie -Xlinker --no-export-dynamic >/dev/null
MDMCONF="$(swift build -c release --show-bin-path)/mdmconf"

DATA=.build/bench-data
if [ ! -f "$DATA/10m.plist" ] || [ "$(ls "$DATA/small" 2>/dev/null | wc -l)" -ne 10000 ]; then
    rm -rf "$DATA"; mkdir -p "$DATA"
    "$PYTHON" Tests/Benchmarks/generate.py "$DATA"
fi
RESULTS=.build/bench-results; rm -rf "$RESULTS"; mkdir -p "$RESULTS"

PYLOAD="import plistlib,sys; [plistlib.load(open(p,'rb')) for p in sys.argv[1:]]"
PYGLOB="import plistlib,glob,sys; [plistlib.load(open(p,'rb')) for p in glob.glob(sys.argv[1]+'/*.plist')]"

for name in 1k 100k 10m; do
    file="$DATA/$name.plist"
    runs=30; [ "$name" = 10m ] && runs=10
    cmds=("$MDMCONF lint $file" "xmllint --noout $file")
    [ -n "$PLUTIL" ] && cmds+=("$PLUTIL -lint $file >/dev/null")
    cmds+=("$PYTHON -c \"$PYLOAD\" $file")
    hyperfine -N --warmup 3 --runs "$runs" --export-json "$RESULTS/$name.json" "${cmds[@]}" >/dev/null 2>&1 \
        || hyperfine --warmup 3 --runs "$runs" --export-json "$RESULTS/$name.json" "${cmds[@]}" >/dev/null
done
cmds=("$MDMCONF lint $DATA/small" "xmllint --noout $DATA/small/*.plist")
[ -n "$PLUTIL" ] && cmds+=("$PLUTIL -lint $DATA/small/*.plist >/dev/null")
cmds+=("$PYTHON -c \"$PYGLOB\" $DATA/small")
hyperfine --warmup 1 --runs 5 --export-json "$RESULTS/small.json" "${cmds[@]}" >/dev/null 2>&1

# Validation against a ProfileManifest (Tests/Benchmarks/bench-schema.plist) that describes the generated configs.
SCHEMA=Tests/Benchmarks/bench-schema.plist
hyperfine -N --warmup 3 --runs 30 --export-json "$RESULTS/validate-1k.json" \
    "$MDMCONF validate --schema $SCHEMA $DATA/1k.plist" "$MDMCONF lint $DATA/1k.plist" >/dev/null 2>&1
hyperfine -N --warmup 2 --runs 10 --export-json "$RESULTS/validate-10m.json" \
    "$MDMCONF validate --schema $SCHEMA $DATA/10m.plist" "$MDMCONF lint $DATA/10m.plist" >/dev/null 2>&1
hyperfine --warmup 1 --runs 5 --export-json "$RESULTS/validate-small.json" \
    "$MDMCONF validate --schema $SCHEMA $DATA/small" "xmllint --noout $DATA/small/*.plist" >/dev/null 2>&1
# 1,000 separate runs, one process per file (the table scales them to 10,000).
hyperfine --warmup 0 --runs 1 --export-json "$RESULTS/validate-separate.json" \
    "for f in \$(ls $DATA/small/*.plist | head -1000); do $MDMCONF validate --schema $SCHEMA \$f >/dev/null; done" >/dev/null 2>&1

"$PYTHON" Tests/Benchmarks/report.py "$DATA" "$RESULTS"
