#!/usr/bin/env bash
# Runs a command with a throw-away PostgreSQL cluster: initdb in a temporary folder, a free local port, a
# database for the tests, MDMCONF_TEST_POSTGRES set to its URL; the cluster is stopped and removed afterwards.
#
#   bash Tests/with-postgres.sh swift test          # the whole suite, PostgreSQL store tests included
#   bash Tests/with-postgres.sh env | grep POSTGRES  # just the URL
#
# Needs PostgreSQL's server binaries (Debian: apt-get install postgresql).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"

dir=$(mktemp -d /tmp/mdmconf-pg.XXXXXX)
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1]); s.close()')
cleanup() {
    bash "$here/pg-cluster.sh" stop "$dir"
    rm -rf "$dir"
}
trap cleanup EXIT

bash "$here/pg-cluster.sh" init "$dir"
bash "$here/pg-cluster.sh" start "$dir" "$port"
bindir=$(bash "$here/pg-cluster.sh" bindir)
"$bindir/createdb" -h 127.0.0.1 -p "$port" -U mdmconf mdmconf_test

export MDMCONF_TEST_POSTGRES="postgres://mdmconf@127.0.0.1:$port/mdmconf_test"
export MDMCONF_TEST_POSTGRES_BIN="$bindir"
echo "with-postgres: PostgreSQL $("$bindir/postgres" --version | awk '{print $3}') on 127.0.0.1:$port ($MDMCONF_TEST_POSTGRES)" >&2
"$@"
