#!/usr/bin/env bash
# Backs up the product's database into a folder of two files:
#   database.dump  pg_dump of the whole database in one snapshot (custom format): every service's
#                  schema with its rows, outbox and inbox, the extensions schema, owners and grants
#   roles.sql      the login roles that own those schemas, with their password hashes, written so
#                  that running it again on a server that has them changes nothing
# Both hold secrets (password hashes, sealed device keys): keep the folder as you keep the keys.
#
# Usage: scripts/backup.sh [folder]        (default var/backups/<database>-<UTC time>)
# DATABASE_ADMIN_URL (a superuser of the server; only pg_authid holds the hashes) and DATABASE_NAME
# say what to back up, as for scripts/db-setup.ts.
set -euo pipefail

admin_url=${DATABASE_ADMIN_URL:-postgres://postgres@127.0.0.1:5432/postgres}
database=${DATABASE_NAME:-quietwire}
folder=${1:-var/backups/${database}-$(date -u +%Y%m%dT%H%M%SZ)}
# The database's URL: the admin URL with its database (the last path part) replaced.
database_url="${admin_url%/*}/${database}"

mkdir -p "$folder"
chmod 700 "$folder"

# Roles first: a role made after the snapshot would own nothing in it, one dropped after it is
# still written here from the schemas' owners as the database has them now.
psql --no-psqlrc --quiet --tuples-only --no-align -v ON_ERROR_STOP=1 --dbname "$database_url" >"$folder/roles.sql" <<'SQL'
select format(
         $$do $do$ begin if not exists (select from pg_roles where rolname = %L) then create role %I login; end if; end $do$;$$,
         a.rolname, a.rolname)
       || case when a.rolpassword is null then ''
               else format(E'\nalter role %I password %L;', a.rolname, a.rolpassword) end
from pg_namespace n
join pg_authid a on a.oid = n.nspowner
where a.rolcanlogin and not a.rolsuper and n.nspname not like 'pg\_%' and n.nspname <> 'information_schema'
group by a.rolname, a.rolpassword
order by a.rolname;
SQL

pg_dump --format=custom --file="$folder/database.dump" --dbname "$database_url"
chmod 600 "$folder/roles.sql" "$folder/database.dump"
echo "backed up ${database} into ${folder}"
