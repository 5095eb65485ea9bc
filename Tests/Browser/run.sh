#!/usr/bin/env bash
# The admin page's browser tests: a real headless Chromium (JavaScript off) driven by Selenium against two real
# servers — `mdmconf serve Examples/catalog` with a SQLite store holding check-ins and two published generations,
# and `mdmconf serve --from-store` following a store of its own. Screenshots go to .build/admin-screenshots/.
# Needs chromium, chromium-driver and python3 with selenium (.ci/run installs them).
set -euo pipefail
cd "$(dirname "$0")/../.."
root=$(pwd)
bin="${MDMCONF:-$root/.build/debug/mdmconf}"
[ -x "$bin" ] && [ -x "$(dirname "$bin")/mdmconf-server" ] || { swift build --product mdmconf && swift build --product mdmconf-server; }
python="${PYTHON:-python3}"
work=$(mktemp -d)
pids=()
cleanup() {
    for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
    wait 2>/dev/null || true
    rm -rf "$work"
}
trap cleanup EXIT
# Chromium's and the tests' own temporary files go into the work folder, removed with it.
mkdir -p "$work/tmp"
export TMPDIR="$work/tmp"

free_port() { "$python" -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }

# Two generations: the example catalog, then a change of its update policy and configuration.
cp -R Examples/catalog "$work/v1"
cp -R Examples/catalog "$work/v2"
sed -i 's|<string>3.0</string>|<string>3.0.1</string>|' "$work/v2/apps/com.example.field/update-policy.plist"
sed -i 's|<integer>443</integer>|<integer>8443</integer>|' "$work/v2/apps/com.example.field/config.plist"
# The second generation also sends its publishes to an endpoint where nothing listens: the events page then has a
# delivery that keeps failing.
dead_port=$(free_port)
cat >"$work/v2/events.plist" <<PLIST
<?xml version="1.0" encoding="UTF-8"?>
<plist version="1.0"><dict><key>ops</key><dict>
<key>url</key><string>http://127.0.0.1:$dead_port/mdmconf</string>
<key>types</key><array><string>io.mdmconf.catalog.published</string><string>io.mdmconf.device.compliance.changed</string></array>
<key>secretEnvironment</key><string>MDMCONF_BROWSER_SECRET</string>
</dict></dict></plist>
PLIST
export MDMCONF_BROWSER_SECRET="whsec_$(head -c 32 /dev/urandom | base64)"
for store in folder follow; do
    "$bin" publish "$work/v1" --store "sqlite:$work/$store.db" --message "first catalog" --author qa >/dev/null
    "$bin" publish "$work/v2" --store "sqlite:$work/$store.db" --message "minimum 3.0.1, port 8443" --author qa >/dev/null
done

# A third store rolls generation 2 out in rings, warehouse first: the rollout panel's server.
"$bin" publish "$work/v1" --store "sqlite:$work/rollout.db" --message "first catalog" --author qa >/dev/null
"$bin" publish "$work/v2" --store "sqlite:$work/rollout.db" --message "port 8443, in rings" --author qa \
    --rollout warehouse,50,100 --min-devices 1 --halt-when 'config-errors > 50%' >/dev/null

port_a=$(free_port)
port_b=$(free_port)
port_c=$(free_port)
"$bin" serve Examples/catalog --store "sqlite:$work/folder.db" --port "$port_a" --public-url https://mdm.example.test \
    >"$work/a.log" 2>&1 &
pids+=($!)
"$bin" serve --from-store --store "sqlite:$work/follow.db" --port "$port_b" >"$work/b.log" 2>&1 &
pids+=($!)
"$bin" serve --from-store --store "sqlite:$work/rollout.db" --port "$port_c" --rollout-check-interval 0.5 \
    >"$work/c.log" 2>&1 &
pids+=($!)
for port in "$port_a" "$port_b" "$port_c"; do
    for _ in $(seq 1 100); do
        curl -fsS "http://127.0.0.1:$port/readyz" >/dev/null 2>&1 && break
        sleep 0.2
    done
done

# Check-ins that give the fleet page every state: current, stale, required, OS too old, an unmanaged app.
admin="Authorization: Bearer example-admin-token-c0ffee"
checkin() {
    curl -fsS -o /dev/null -X POST "http://127.0.0.1:$port_a/v1/checkin" -H "$admin" -H 'Content-Type: application/json' -d "$1"
}
etag() {
    curl -fsS -D - -o /dev/null -H "$admin" "http://127.0.0.1:$port_a/v1/apps/$1/config?device=iphone-0117" \
        | tr -d '\r' | sed -n 's/^[Ee][Tt][Aa][Gg]: //p' | sed 's/"/\\"/g'
}
# iphone-0117 runs both of its apps at their current configurations: the one compliant device.
checkin "{\"device\": \"iphone-0117\", \"platform\": \"ios\", \"osVersion\": \"17.4.1\", \"apps\": [{\"app\": \"com.example.field\", \"version\": \"3.2.1\", \"configETag\": \"$(etag com.example.field)\"}, {\"app\": \"com.example.fieldsync\", \"version\": \"1.4.0\", \"configETag\": \"$(etag com.example.fieldsync)\"}]}"
checkin '{"device": "ipad-0042", "platform": "ipados", "osVersion": "17.2", "apps": [{"app": "com.example.field", "version": "2.3.1"}]}'
checkin '{"device": "iphone-0201", "platform": "ios", "osVersion": "15.7", "apps": [{"app": "com.example.field", "version": "2.0"}]}'
checkin '{"device": "iphone-0202", "platform": "ios", "osVersion": "17.4", "apps": [{"app": "com.example.field", "version": "3.1.0"}, {"app": "com.other.notes", "version": "1.0"}]}'
# iphone-0400 is configured by DDM: its status report says the configuration is invalid, in the device's words.
curl -fsS -o /dev/null -X POST "http://127.0.0.1:$port_a/v1/ddm/iphone-0400/status" -H "$admin" \
    -H 'Content-Type: application/json' \
    -d '{"StatusItems": {"app": {"managed": {"list": [{"identifier": "com.example.field", "short-version": "3.2.1", "state": "managed", "config-state": "invalid", "reasons": [{"code": "Error.ConfigurationInvalid", "description": "ServerPort must be an integer"}]}]}}}, "Errors": []}'

# The warehouse iPad checks in with its new configuration; iphone-0117, not moved yet, without an error.
curl -fsS -o /dev/null -X POST "http://127.0.0.1:$port_c/v1/checkin" -H "$admin" -H 'Content-Type: application/json' \
    -d '{"device": "ipad-0042", "platform": "ipados", "osVersion": "17.2", "apps": [{"app": "com.example.field", "version": "3.2.1"}]}'

cat >"$work/broken-config.plist" <<'PLIST'
<?xml version="1.0" encoding="UTF-8"?>
<!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
<plist version="1.0">
<dict>
	<key>ServerURL</key>
	<string>ftp://field.example.com</string>
	<key>ServerPort</key>
	<string>four-four-three</string>
	<key>SyncIntervalMinutes</key>
	<integer>-5</integer>
	<key>Theme</key>
	<string>neon</string>
</dict>
</plist>
PLIST

shots="$root/.build/admin-screenshots"
rm -rf "$shots"
mkdir -p "$shots"
set +e
# The second server by another host name: cookies are kept per host, not per port.
"$python" Tests/Browser/admin_test.py "http://127.0.0.1:$port_a" "http://localhost:$port_b" "$shots" "$work/broken-config.plist" \
    "http://127.0.0.1:$port_c"
status=$?
set -e
if [ $status -ne 0 ]; then
    echo "--- server logs ---"
    tail -n 40 "$work/a.log" "$work/b.log" "$work/c.log"
fi
exit $status
