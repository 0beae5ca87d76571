#!/usr/bin/env bash
# Makes sure Postgres and NATS (with JetStream) answer on this machine; starts them with the
# machine's own commands when they do not. Used by `make dev`, `make test` and CI.
set -euo pipefail

answers() { (exec 3<>"/dev/tcp/$1/$2") 2>/dev/null; }
# The machine's newest Postgres cluster version (Debian's pg_ctlcluster names clusters by it).
cluster_version() { ls /etc/postgresql | sort -V | tail -1; }

if ! answers 127.0.0.1 5432; then
  echo "infra: starting PostgreSQL"
  if command -v pg_ctlcluster >/dev/null; then
    pg_ctlcluster --skip-systemctl-redirect "$(cluster_version)" main start
  else
    echo "infra: PostgreSQL is not answering on 127.0.0.1:5432 and pg_ctlcluster is missing" >&2; exit 1
  fi
fi
# Room for the tests: several test files at a time (vitest's workers), each with up to five
# services whose pools open up to 10 connections (DATABASE_POOL_MAX), beside a running `make dev`.
# Postgres's default of 100 ran out ("remaining connection slots are reserved", a service answering 500).
# A cluster of this machine's own (pg_ctlcluster) is given QW_PG_MAX_CONNECTIONS (default 300) and
# restarted once; a server elsewhere is left as it is.
wanted=${QW_PG_MAX_CONNECTIONS:-300}
if answers 127.0.0.1 5432 && command -v pg_ctlcluster >/dev/null && command -v psql >/dev/null; then
  current=$(psql -h 127.0.0.1 -U postgres -d postgres -Atc 'show max_connections' 2>/dev/null || echo "$wanted")
  if [ "$current" -lt "$wanted" ]; then
    echo "infra: PostgreSQL max_connections $current -> $wanted (restart)"
    psql -h 127.0.0.1 -U postgres -d postgres -qc "alter system set max_connections = $wanted"
    pg_ctlcluster --skip-systemctl-redirect "$(cluster_version)" main restart
  fi
fi
if ! answers 127.0.0.1 4222; then
  echo "infra: starting NATS with JetStream"
  mkdir -p /var/lib/nats-server
  start-stop-daemon --start --oknodo --background --exec /usr/sbin/nats-server -- \
    -a 127.0.0.1 -p 4222 -js -sd /var/lib/nats-server -l /var/log/nats-server.log
fi
for _ in $(seq 1 100); do
  if answers 127.0.0.1 5432 && answers 127.0.0.1 4222; then exit 0; fi
  sleep 0.2
done
echo "infra: PostgreSQL or NATS did not come up" >&2
exit 1
