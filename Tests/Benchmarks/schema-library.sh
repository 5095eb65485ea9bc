#!/usr/bin/env bash
# Validating one small configuration with a ProfileManifests checkout (255 manifests) on MDMCONF_SCHEMA_PATH, with
# the schema index cold and warm, next to naming the manifest with --schema (issue 15: warm within 1.5x of
# explicit). Release build, hyperfine.
#
#   PROFILEMANIFESTS=/path/to/ProfileManifests/Manifests bash Tests/Benchmarks/schema-library.sh
#   (without it, the repository is cloned into .build/bench-schema-library)
set -euo pipefail
cd "$(dirname "$0")/../.."
command -v hyperfine >/dev/null || {
    SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO="sudo"
    $SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq hyperfine
}
swift build -c release --product mdmconf >/dev/null
BIN="$(swift build -c release --show-bin-path)/mdmconf"
D=$PWD/.build/bench-schema-library; mkdir -p "$D"
LIB=${PROFILEMANIFESTS:-}
if [ -z "$LIB" ]; then
    [ -d "$D/ProfileManifests" ] || git clone -q --depth 1 https://github.com/ProfileCreator/ProfileManifests "$D/ProfileManifests"
    LIB="$D/ProfileManifests/Manifests"
fi
CHROME=$(find "$LIB" -name com.google.Chrome.plist | head -1)
cat >"$D/com.google.Chrome.plist" <<'PLIST'
<?xml version="1.0" encoding="UTF-8"?>
<plist version="1.0"><dict><key>HomepageLocation</key><string>https://intranet.example.com</string>
<key>HomepageIsNewTabPage</key><false/></dict></plist>
PLIST
echo "library: $(find "$LIB" -name '*.plist' | wc -l) manifests under $LIB"
export XDG_CACHE_HOME="$D/cache"
hyperfine -N --warmup 3 --runs 30 \
    -n "explicit --schema" "$BIN validate --schema $CHROME $D/com.google.Chrome.plist" \
    -n "MDMCONF_SCHEMA_PATH, warm index" "env MDMCONF_SCHEMA_PATH=$LIB $BIN validate $D/com.google.Chrome.plist" \
    --export-markdown "$D/warm.md"
hyperfine -N --runs 10 --prepare "rm -rf $D/cache" \
    -n "MDMCONF_SCHEMA_PATH, cold index" "env MDMCONF_SCHEMA_PATH=$LIB $BIN validate $D/com.google.Chrome.plist" \
    --export-markdown "$D/cold.md"
cat "$D/warm.md" "$D/cold.md"
