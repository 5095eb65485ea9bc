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

# fleet_catalog DIR PYTHON: writes to DIR the fleet benchmarks' catalog: the example one with a third app (a copy of
# the field app) and 2,000 more inventory devices, bench-00000 … bench-01999, that check_in_lua's check-ins name.
fleet_catalog() {
    cp -rL Examples/catalog "$1"
    cp -r "$1/apps/com.example.field" "$1/apps/com.example.fieldnotes"
    sed -i 's/com\.example\.field\b/com.example.fieldnotes/g' $(grep -rl 'com.example.field' "$1/apps/com.example.fieldnotes")
    "$2" - "$1/devices.plist" <<'PY'
import plistlib, sys
path = sys.argv[1]
with open(path, "rb") as f:
    devices = plistlib.load(f)
for i in range(2000):
    devices[f"bench-{i:05d}"] = {"udid": f"00008110-{i:016X}", "serialNumber": f"BENCH{i:07d}",
        "email": f"user{i}@example.com", "username": f"user{i}", "deviceName": f"Bench {i}",
        "groups": ["warehouse"] if i % 3 == 0 else ["sales"]}
with open(path, "wb") as f:
    plistlib.dump(devices, f)
PY
}

# check_in_lua FILE: writes wrk's script for POST /v1/checkin: 3 apps a check-in, spread over fleet_catalog's devices.
check_in_lua() {
    cat >"$1" <<'LUA'
local counter = 1
function setup(thread) thread:set("id", counter); counter = counter + 1 end
local n = 0
function request()
  n = n + 1
  local device = string.format("bench-%05d", (n * 7919 + id * 1009) % 2000)
  local body = '{"device":"' .. device .. '","platform":"ios","osVersion":"17.4.1","deviceModel":"iPhone15,2",'
    .. '"locale":"en","timeZone":"Europe/Berlin","apps":[{"app":"com.example.field","version":"3.2.1","build":"321"},'
    .. '{"app":"com.example.fieldnotes","version":"3.1.0"},{"app":"com.example.fieldsync","version":"1.0"}]}'
  return wrk.format("POST", "/v1/checkin", {["Content-Type"] = "application/json",
    ["Authorization"] = "Bearer example-admin-token-c0ffee"}, body)
end
LUA
}
