#!/usr/bin/env bash
# A throw-away PostgreSQL cluster for tests, run as the 'postgres' user when called as root (initdb refuses root).
#   bash Tests/pg-cluster.sh init  DIR          # initdb into DIR/data (user mdmconf, trust on loopback)
#   bash Tests/pg-cluster.sh start DIR PORT     # start it on 127.0.0.1:PORT (sockets in DIR), wait until ready
#   bash Tests/pg-cluster.sh stop  DIR          # immediate stop, as a crash or an outage would
#   bash Tests/pg-cluster.sh bindir             # where initdb and pg_ctl are
set -euo pipefail

bindir=""
for candidate in $(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V -r) "$(dirname "$(command -v initdb 2>/dev/null || echo /nonexistent/x)")"; do
    if [ -x "$candidate/initdb" ] && [ -x "$candidate/pg_ctl" ]; then bindir="$candidate"; break; fi
done
if [ -z "$bindir" ]; then
    echo "pg-cluster: no initdb/pg_ctl found (apt-get install postgresql)" >&2
    exit 69
fi

as_owner=()
if [ "$(id -u)" -eq 0 ]; then
    id postgres >/dev/null 2>&1 || useradd --system --no-create-home postgres
    as_owner=(runuser -u postgres --)
fi

command=${1:-}
dir=${2:-}
case "$command" in
    bindir) echo "$bindir" ;;
    init)
        mkdir -p "$dir"
        chmod 755 "$dir"
        [ ${#as_owner[@]} -gt 0 ] && chown postgres "$dir"
        "${as_owner[@]}" "$bindir/initdb" -D "$dir/data" -U mdmconf --auth=trust --no-sync -E UTF8 >"$dir/initdb.log" 2>&1 \
            || { cat "$dir/initdb.log" >&2; exit 70; }
        ;;
    start)
        port=$3
        # Durable commits as in production (fsync on); listens on loopback and in DIR only.
        "${as_owner[@]}" "$bindir/pg_ctl" -D "$dir/data" -l "$dir/server.log" -w -t 60 \
            -o "-p $port -k $dir -c listen_addresses=127.0.0.1 -c max_connections=300" start >/dev/null \
            || { cat "$dir/server.log" >&2; exit 70; }
        ;;
    stop)
        "${as_owner[@]}" "$bindir/pg_ctl" -D "$dir/data" -m immediate stop >/dev/null 2>&1 || true
        ;;
    *)
        echo "usage: pg-cluster.sh init DIR | start DIR PORT | stop DIR | bindir" >&2
        exit 64
        ;;
esac
