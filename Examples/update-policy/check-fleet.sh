#!/usr/bin/env bash
# How a CI job or fleet script branches on `mdmconf update-check`'s exit code.
#
#   bash Examples/update-policy/check-fleet.sh [REQUESTS_DIR]
#
# Each *.json file in REQUESTS_DIR (default: the requests/ folder beside this script) is one device's report.
# The script prints one line per device and exits 1 when any device must update now, so a CI gate or a
# scheduled fleet check fails loudly. Set MDMCONF to a built binary to skip `swift run`.
set -u
here="$(cd "$(dirname "$0")" && pwd)"
requests="${1:-$here/requests}"
policy="$here/update-policy.plist"
mdmconf=(${MDMCONF:-swift run --quiet mdmconf})

must_update=0
for request in "$requests"/*.json; do
    device="$(basename "$request" .json)"
    target="$("${mdmconf[@]}" update-check --policy "$policy" --request "$request" --format json \
        | sed -n 's/^  "targetVersion": "\(.*\)",$/\1/p')"
    "${mdmconf[@]}" update-check --policy "$policy" --request "$request" >/dev/null
    case $? in
        0)  echo "$device: up to date" ;;
        10) echo "$device: update to ${target:-the latest version} soon (reminder sent)" ;;
        20) echo "$device: must update to ${target:-the latest version} now"; must_update=1 ;;
        30) echo "$device: OS too old for ${target:-the required version}: schedule a hardware refresh"; must_update=1 ;;
        65) echo "$device: the device sent malformed data; check its report" ;;
        66) echo "$device: report missing"; exit 66 ;;
        78) echo "the update policy itself is invalid: run mdmconf lint $policy"; exit 78 ;;
        *)  echo "$device: unexpected answer"; exit 1 ;;
    esac
done
exit $must_update
