# Shared by the server benchmarks (sourced): the update-check request wrk sends, and one summary line of a wrk run.

# update_check_lua FILE: writes wrk's script for POST /v1/update-check with the example admin token.
update_check_lua() {
    cat >"$1" <<'LUA'
wrk.method = "POST"
wrk.body = '{"app": "com.example.field", "version": "3.0.2", "platform": "ios", "osVersion": "17.4", "deviceId": "ipad-0042"}'
wrk.headers["Content-Type"] = "application/json"
wrk.headers["Authorization"] = "Bearer example-admin-token-c0ffee"
LUA
}

# summary LABEL WRK-OUTPUT: requests/s, p99 and any errors on one line.
summary() {
    local rps p99 errors
    rps=$(grep -E '^Requests/sec' <<<"$2" | awk '{print $2}')
    p99=$(grep -E '^ +99%' <<<"$2" | awk '{print $2}')
    errors=$(grep -E 'Non-2xx|Socket errors' <<<"$2" | tr '\n' ' ' || true)
    printf '%-40s %12s req/s   p99 %8s   %s\n' "$1" "$rps" "$p99" "${errors:-no errors}"
}
