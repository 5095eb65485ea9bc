#!/usr/bin/env bash
# Device-policy benchmarks (issue 5), release build:
#   1. in-process URL decisions per second against a 1,000-entry deny list (target ≥ 500,000/s);
#   2. `mdmconf policy url` end to end over 10 profiles (the kiosk example plus 4 generated ones, one of them
#      the 1,000-entry deny list), median by hyperfine (target < 15 ms), beside `xmllint --noout` reading the
#      same 10 files (only parsing them; the floor for any tool that reads them).
#
#   bash Tests/Benchmarks/policy.sh
set -euo pipefail
cd "$(dirname "$0")/../.."

source Tests/Benchmarks/common.sh
need hyperfine:hyperfine xmllint:libxml2-utils

swift build -c release --static-swift-stdlib --product mdmconf -Xlinker -no-pie -Xlinker --no-export-dynamic >/dev/null
swift build -c release --product policy-decisions-benchmark >/dev/null
BIN="$(swift build -c release --show-bin-path)"

"$BIN/policy-decisions-benchmark" 500000

DATA=.build/bench-policy; rm -rf "$DATA"; mkdir -p "$DATA"
cp Examples/device-policy/profiles/*.mobileconfig "$DATA/"
payload() {  # identifier type body
    cat <<XML
<?xml version="1.0" encoding="UTF-8"?>
<!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
<plist version="1.0"><dict>
<key>PayloadType</key><string>Configuration</string><key>PayloadIdentifier</key><string>$1</string>
<key>PayloadUUID</key><string>$1-uuid</string><key>PayloadContent</key><array><dict>
<key>PayloadType</key><string>$2</string><key>PayloadIdentifier</key><string>$1.p</string>
<key>PayloadUUID</key><string>$1.p-uuid</string>
$3
</dict></array></dict></plist>
XML
}
deny=$(for i in $(seq 0 999); do echo "<string>blocked$i.example.com</string>"; done)
payload bench.deny com.apple.webcontent-filter "<key>DenyListURLs</key><array>$deny</array>" >"$DATA/70-deny.mobileconfig"
payload bench.more com.apple.applicationaccess \
    "<key>blockedAppBundleIDs</key><array><string>com.example.games</string></array><key>allowSafari</key><true/>" \
    >"$DATA/80-more.mobileconfig"
payload bench.guest com.apple.wifi.managed "<key>SSID_STR</key><string>ACME-Guest</string>" >"$DATA/90-guest.mobileconfig"
payload bench.vpn2 com.apple.vpn.managed "<key>VPNType</key><string>IKEv2</string>" >"$DATA/95-vpn.mobileconfig"
ls "$DATA" | wc -l | xargs echo "profiles:"

hyperfine -N -i --warmup 5 --runs 100 \
    "$BIN/mdmconf policy url https://blocked500.example.com/x --profile $DATA --at 2025-03-10T09:00:00Z" \
    "$BIN/mdmconf policy url https://portal.acme.com/kiosk/ --profile $DATA --at 2025-03-10T09:00:00Z --format json" \
    "xmllint --noout $(ls $DATA/*.mobileconfig | tr '\n' ' ')" 2>&1 | grep -v "^ *$" || true
