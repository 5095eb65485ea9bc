#!/usr/bin/env bash
# schemathesis (from PyPI) against a live `mdmconf serve Examples/catalog` with a SQLite store, over the whole
# OpenAPI document the server serves at /openapi.json: an admin token, a device token and no token, a bounded
# number of examples per operation (MAX_EXAMPLES, default 25). Checks: no 5xx, every status, content type,
# header and JSON body inside the document, 405 for methods the document does not list.
#
#   bash Tests/Contract/schemathesis.sh          # needs schemathesis (pip install schemathesis) and curl
set -euo pipefail
cd "$(dirname "$0")/../.."
bin="${MDMCONF:-$PWD/.build/debug/mdmconf}"
[ -x "$bin" ] && [ -x "$(dirname "$bin")/mdmconf-server" ] || { swift build --product mdmconf && swift build --product mdmconf-server; }
python="${PYTHON:-python3}"
examples="${MAX_EXAMPLES:-25}"
work=$(mktemp -d)
server=""
cleanup() {
    [ -n "$server" ] && kill "$server" 2>/dev/null || true
    wait 2>/dev/null || true
    rm -rf "$work"
}
trap cleanup EXIT
port=$("$python" -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
"$bin" serve Examples/catalog --store "sqlite:$work/fleet.db" --port "$port" --log-level warning \
    --public-url https://mdm.example.com 2>"$work/serve.log" &
server=$!
for _ in $(seq 1 150); do curl -fsS "http://127.0.0.1:$port/healthz" >/dev/null 2>&1 && break; sleep 0.2; done
checks="not_a_server_error,status_code_conformance,content_type_conformance,response_headers_conformance,response_schema_conformance,unsupported_method"
status=0
for who in admin device none; do
    auth=()
    case $who in
        admin) auth=(-H "Authorization: Bearer example-admin-token-c0ffee") ;;
        device) auth=(-H "Authorization: Bearer example-device-token-iphone-0117") ;;
    esac
    echo "== schemathesis as $who, $examples examples per operation =="
    set +e
    "$python" -m schemathesis.cli run "http://127.0.0.1:$port/openapi.json" "${auth[@]}" --max-examples "$examples" \
        --checks "$checks" --seed 7415 --no-color >"$work/$who.txt" 2>&1
    code=$?
    set -e
    grep -E "generated|passed|failed|Selected" "$work/$who.txt" | tail -4
    if [ $code -ne 0 ]; then
        status=1
        cat "$work/$who.txt"
    fi
    cases=$(grep -Eo '[0-9]+ generated' "$work/$who.txt" | tail -1 | cut -d' ' -f1)
    echo "schemathesis ($who): ${cases:-0} cases, exit $code"
    if [ "${cases:-0}" -eq 0 ]; then
        echo "schemathesis ($who) generated no cases: nothing was checked"
        status=1
    fi
done
if ! kill -0 "$server" 2>/dev/null; then
    echo "the server died under schemathesis"; cat "$work/serve.log"; status=1
fi
exit $status
