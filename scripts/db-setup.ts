/**
 * Creates the product's database (if missing) and, for every backend service, a login role that
 * owns one schema and nothing else. Services migrate their own schema when they start.
 */
import pg from 'pg';
import { backendServices } from '@qw/contracts';
import { provisionSchema, serviceRole, urlForRole } from '@qw/platform/db';

export async function setUpDatabase(adminUrl: string, database: string): Promise<Record<string, string>> {
  const server = new pg.Client({ connectionString: adminUrl });
  await server.connect();
  try {
    const exists = await server.query('select 1 from pg_database where datname = $1', [database]);
    if (exists.rowCount === 0) await server.query(`CREATE DATABASE "${database.replace(/"/g, '')}"`);
  } finally {
    await server.end();
  }
  const databaseUrl = new URL(adminUrl);
  databaseUrl.pathname = `/${database}`;
  const urls: Record<string, string> = {};
  for (const service of backendServices) {
    await provisionSchema(databaseUrl.toString(), service, serviceRole(service));
    urls[service] = urlForRole(databaseUrl.toString(), serviceRole(service));
  }
  return urls;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const adminUrl = process.env.DATABASE_ADMIN_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
  const urls = await setUpDatabase(adminUrl, process.env.DATABASE_NAME ?? 'quietwire');
  for (const [service, url] of Object.entries(urls))
    console.log(`${service}: ${new URL(url).username}@${new URL(url).pathname.slice(1)}`);
}
