#!/usr/bin/env bash
# `mdmconf lint` over every manifest of a ProfileManifests checkout (255 files) beside one `xmllint --noout` over the
# same files, in one hyperfine run (issue 15: within 1.5x of xmllint's wall time). The build the README tells script
# authors to use: release, static Swift runtime, no PIE, stripped.
#
#   PROFILEMANIFESTS=/path/to/ProfileManifests/Manifests bash Tests/Benchmarks/manifest-lint.sh
#   (without it, the repository is cloned into .build/bench-schema-library)
set -euo pipefail
cd "$(dirname "$0")/../.."
source Tests/Benchmarks/common.sh
need hyperfine:hyperfine xmllint:libxml2-utils
D=$PWD/.build/bench-manifest-lint; mkdir -p "$D"
script_mdmconf "$D/mdmconf"
LIB=${PROFILEMANIFESTS:-}
if [ -z "$LIB" ]; then
    clone=$PWD/.build/bench-schema-library/ProfileManifests
    [ -d "$clone" ] || git clone -q --depth 1 https://github.com/ProfileCreator/ProfileManifests "$clone"
    LIB="$clone/Manifests"
fi
find "$LIB" -name '*.plist' | sort >"$D/files.txt"
echo "$(wc -l <"$D/files.txt") manifests under $LIB"
{ "$D/mdmconf" lint "$LIB" 2>&1 >/dev/null || true; } | tail -1
hyperfine -N --warmup 5 --runs "${RUNS:-60}" -i \
    -n "xmllint --noout (every manifest)" "xmllint --noout $(tr '\n' ' ' <"$D/files.txt")" \
    -n "mdmconf lint (the folder)" "$D/mdmconf lint $LIB" \
    --export-markdown "$D/lint.md" >/dev/null
cat "$D/lint.md"
