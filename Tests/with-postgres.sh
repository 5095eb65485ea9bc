#!/usr/bin/env bash
# Runs a command with a throw-away PostgreSQL cluster: initdb in a temporary folder, a free local port, a
# database for the tests, MDMCONF_TEST_POSTGRES set to its URL; the cluster is stopped and removed afterwards.
#
#   bash Tests/with-postgres.sh swift test          # the whole suite, PostgreSQL store tests included
#   bash Tests/with-postgres.sh env | grep POSTGRES  # just the URL
#
# Needs PostgreSQL's server binaries (Debian: apt-get install postgresql). As root, the cluster runs as the
# 'postgres' user (initdb refuses root).
set -euo pipefail

bindir=""
for candidate in $(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V -r) "$(dirname "$(command -v initdb 2>/dev/null || echo /nonexistent/x)")"; do
    if [ -x "$candidate/initdb" ] && [ -x "$candidate/pg_ctl" ]; then bindir="$candidate"; break; fi
done
if [ -z "$bindir" ]; then
    echo "with-postgres: no initdb/pg_ctl found (apt-get install postgresql)" >&2
    exit 69
fi

as_owner=()
if [ "$(id -u)" -eq 0 ]; then
    id postgres >/dev/null 2>&1 || useradd --system --no-create-home postgres
    as_owner=(runuser -u postgres --)
fi

dir=$(mktemp -d /tmp/mdmconf-pg.XXXXXX)
chmod 755 "$dir"
[ ${#as_owner[@]} -gt 0 ] && chown postgres "$dir"
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1]); s.close()' 2>/dev/null || echo 55432)

cleanup() {
    "${as_owner[@]}" "$bindir/pg_ctl" -D "$dir/data" -m immediate stop >/dev/null 2>&1 || true
    rm -rf "$dir"
}
trap cleanup EXIT

"${as_owner[@]}" "$bindir/initdb" -D "$dir/data" -U mdmconf --auth=trust --no-sync -E UTF8 >"$dir/initdb.log" 2>&1 \
    || { cat "$dir/initdb.log" >&2; exit 70; }
# Durable commits as in production (fsync on); sockets only in the cluster's folder and on loopback.
"${as_owner[@]}" "$bindir/pg_ctl" -D "$dir/data" -l "$dir/server.log" -w -t 60 \
    -o "-p $port -k $dir -c listen_addresses=127.0.0.1 -c max_connections=200" start >/dev/null \
    || { cat "$dir/server.log" >&2; exit 70; }
"${as_owner[@]}" "$bindir/createdb" -h 127.0.0.1 -p "$port" -U mdmconf mdmconf_test

export MDMCONF_TEST_POSTGRES="postgres://mdmconf@127.0.0.1:$port/mdmconf_test"
export MDMCONF_TEST_POSTGRES_BIN="$bindir"
echo "with-postgres: PostgreSQL $("$bindir/postgres" --version | awk '{print $3}') on 127.0.0.1:$port ($MDMCONF_TEST_POSTGRES)" >&2
"$@"
