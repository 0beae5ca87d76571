#!/usr/bin/env bash
# Postgres container start-up: the database, then one login role and one owned schema per service.
set -euo pipefail
psql -v ON_ERROR_STOP=1 --username "$POSTGRES_USER" --dbname "$POSTGRES_DB" <<SQL
REVOKE ALL ON SCHEMA public FROM PUBLIC;
SQL
: "${SERVICE_DB_PASSWORD:?the service roles need a password (make up writes one into var/compose.env)}"
for service in identity billing provisioning telemetry analytics; do
  psql -v ON_ERROR_STOP=1 --username "$POSTGRES_USER" --dbname "$POSTGRES_DB" <<SQL
CREATE ROLE qw_${service} LOGIN PASSWORD '${SERVICE_DB_PASSWORD}';
GRANT CONNECT, TEMPORARY ON DATABASE ${POSTGRES_DB} TO qw_${service};
CREATE SCHEMA ${service} AUTHORIZATION qw_${service};
ALTER ROLE qw_${service} IN DATABASE ${POSTGRES_DB} SET search_path = ${service};
SQL
done
