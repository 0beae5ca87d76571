#!/usr/bin/env bash
# Makes a hot standby of a Debian Postgres cluster on the same machine with Debian's tooling
# (pg_createcluster, pg_ctlcluster): a base backup of the primary, streaming its WAL from then on,
# answering read-only queries. Services read their lag-tolerant reads there when DATABASE_READ_URL
# points at it (docs/operations.md, "Postgres: primary and replica").
#
# Usage: scripts/pg-standby.sh [standby port]      (default 5433)
# PG_VERSION (15), PRIMARY_CLUSTER (main), STANDBY_CLUSTER (standby), PRIMARY_PORT (5432).
# Run as root on the machine. On two machines, run the pg_basebackup step on the standby's machine
# against the primary's address, with a replication role and its password instead of trust.
set -euo pipefail

version=${PG_VERSION:-15}
primary=${PRIMARY_CLUSTER:-main}
standby=${STANDBY_CLUSTER:-standby}
primary_port=${PRIMARY_PORT:-5432}
port=${1:-5433}
hba=/etc/postgresql/${version}/${primary}/pg_hba.conf
data=/var/lib/postgresql/${version}/${standby}

# The primary must let the standby stream: a replication line for loopback (here, where every
# local connection is trusted already; elsewhere a replication role with scram-sha-256).
if ! grep -Eq '^host[[:space:]]+replication[[:space:]]+all[[:space:]]+127\.0\.0\.1/32' "$hba"; then
  printf 'host replication all 127.0.0.1/32 trust\n' >>"$hba"
  pg_ctlcluster "$version" "$primary" reload
fi

if pg_lsclusters --no-header | awk '{print $1" "$2}' | grep -qx "${version} ${standby}"; then
  echo "cluster ${version}/${standby} exists already; drop it first (pg_dropcluster --stop ${version} ${standby})" >&2
  exit 73
fi

pg_createcluster "$version" "$standby" --port "$port" -- --auth=trust >/dev/null
# The new cluster's own files give way to the primary's copy; its configuration in /etc stays.
rm -rf "${data:?}"/*
su postgres -c "pg_basebackup -h 127.0.0.1 -p ${primary_port} -U postgres -D ${data} -R -X stream -c fast"
cat >"/etc/postgresql/${version}/${standby}/conf.d/90-standby.conf" <<CONF
listen_addresses = '127.0.0.1'
port = ${port}
hot_standby = on
# A query on the standby that a replayed vacuum would cancel waits up to this long, then is cancelled.
max_standby_streaming_delay = 30s
hot_standby_feedback = on
CONF
pg_ctlcluster "$version" "$standby" start
psql -h 127.0.0.1 -p "$port" -U postgres -Atc "select 'standby of port ${primary_port} on port ${port}, in recovery: ' || pg_is_in_recovery()"
