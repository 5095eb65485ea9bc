#!/usr/bin/env bash
# check-catalog.sh CATALOG [FORMAT]: what a catalog change must pass before it is published. Every app's
# configuration and group variants are validated against the app's schema, every update policy is linted, and
# the profiles are linted as a set; FORMAT is text (default) or github (annotations on a pull request's files).
# Exit 0 when everything passes, 1 when something does not. MDMCONF names the binary (default: mdmconf on PATH).
set -uo pipefail
catalog=${1:?usage: check-catalog.sh CATALOG [text|github]}
format=${2:-text}
mdmconf=${MDMCONF:-mdmconf}
status=0
for app in "$catalog"/apps/*/; do
    schema=""
    for candidate in "$app"schema.xml "$app"schema.plist; do [ -f "$candidate" ] && schema=$candidate && break; done
    if [ -z "$schema" ]; then
        echo "${app}: no schema.xml or schema.plist" >&2
        status=1
        continue
    fi
    configs=("${app}config.plist")
    [ -d "${app}configs" ] && configs+=("${app}configs")
    "$mdmconf" validate --schema "$schema" --format "$format" "${configs[@]}" || status=1
    for policy in "${app}update-policy.plist" "${app}update-policy.json"; do
        if [ -f "$policy" ]; then "$mdmconf" lint --format "$format" "$policy" || status=1; fi
    done
done
if [ -d "$catalog/profiles" ]; then
    "$mdmconf" policy lint --profile "$catalog/profiles" --format "$format" || status=1
fi
exit $status
