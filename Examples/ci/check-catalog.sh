#!/usr/bin/env bash
# check-catalog.sh CATALOG [FORMAT]: what a catalog change must pass before it is published. Every app's
# configuration and group variants are validated against the app's schema (config.json and configs/*.json against
# app_restrictions.xml for Android), every update policy is linted, and
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
    android="${app}app_restrictions.xml"
    if [ -z "$schema" ] && [ ! -f "$android" ]; then
        echo "${app}: no schema.xml, schema.plist or app_restrictions.xml" >&2
        status=1
        continue
    fi
    if [ -n "$schema" ]; then
        configs=("${app}config.plist")
        for variant in "${app}"configs/*.plist; do [ -f "$variant" ] && configs+=("$variant"); done
        "$mdmconf" validate --schema "$schema" --format "$format" "${configs[@]}" || status=1
    fi
    if [ -f "$android" ]; then
        # Android: the restrictions linted with the app's res/ folder, then config.json and configs/*.json.
        res=()
        [ -d "${app}res" ] && res=(--res "${app}res")
        configs=("${app}config.json")
        for variant in "${app}"configs/*.json; do [ -f "$variant" ] && configs+=("$variant"); done
        "$mdmconf" lint "${res[@]}" --format "$format" "$android" || status=1
        "$mdmconf" validate --schema "$android" "${res[@]}" --format "$format" "${configs[@]}" || status=1
    fi
    for policy in "${app}update-policy.plist" "${app}update-policy.json"; do
        if [ -f "$policy" ]; then "$mdmconf" lint --format "$format" "$policy" || status=1; fi
    done
done
if [ -d "$catalog/profiles" ]; then
    "$mdmconf" policy lint --profile "$catalog/profiles" --format "$format" || status=1
fi
exit $status
