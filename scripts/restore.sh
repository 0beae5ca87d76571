#!/usr/bin/env bash
# Restores a folder written by scripts/backup.sh into a new database: the roles (made where missing),
# then every schema with its rows, owners and grants, then each service role's right to connect and
# its search_path (as scripts/db-setup.ts gives them). Refuses a database that already exists, so it
# never mixes a backup into live data: restore beside it, check, then point the services at it.
#
# Usage: scripts/restore.sh <folder>
# DATABASE_ADMIN_URL (a superuser of the target server) and DATABASE_NAME (the new database).
set -euo pipefail

folder=${1:?usage: scripts/restore.sh <backup folder>}
admin_url=${DATABASE_ADMIN_URL:-postgres://postgres@127.0.0.1:5432/postgres}
database=${DATABASE_NAME:-quietwire}
database_url="${admin_url%/*}/${database}"
[[ "$database" =~ ^[a-z_][a-z0-9_]*$ ]] || { echo "DATABASE_NAME must be a plain lower-case name" >&2; exit 64; }
[[ -f "$folder/database.dump" && -f "$folder/roles.sql" ]] || { echo "$folder is not a backup folder" >&2; exit 66; }

psql() { command psql --no-psqlrc --quiet -v ON_ERROR_STOP=1 "$@"; }

exists=$(psql --tuples-only --no-align --dbname "$admin_url" -c "select 1 from pg_database where datname = '${database}'")
if [[ -n "$exists" ]]; then
  echo "database ${database} exists already; restore into a new name" >&2
  exit 73
fi

psql --dbname "$admin_url" --file "$folder/roles.sql"
psql --dbname "$admin_url" -c "create database \"${database}\""
pg_restore --exit-on-error --single-transaction --dbname "$database_url" "$folder/database.dump"

# What belongs to the database itself rather than to a schema (pg_dump writes it only with --create,
# under the old name): who may connect, and each service role's schema as its default search_path.
psql --dbname "$database_url" <<SQL
revoke all on database "${database}" from public;
do \$do\$
declare owner record;
begin
  for owner in
    select n.nspname as schema, r.rolname as role
    from pg_namespace n join pg_roles r on r.oid = n.nspowner
    where r.rolcanlogin and not r.rolsuper and n.nspname not like 'pg\_%' and n.nspname <> 'information_schema'
  loop
    execute format('grant connect, temporary on database %I to %I', current_database(), owner.role);
    execute format('alter role %I in database %I set search_path = %I', owner.role, current_database(), owner.schema);
  end loop;
end
\$do\$;
SQL
echo "restored ${folder} into ${database}"
