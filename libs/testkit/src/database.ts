import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { provisionSchema, serviceRole, urlForRole } from '@qw/platform/db';
import { migratedTemplate } from './template-database.ts';

export const adminDatabaseUrl = process.env.TEST_DATABASE_ADMIN_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';

export type TestDatabase = {
  name: string;
  /** Administrator connection to the new database. */
  adminUrl: string;
  /** Creates the service's role and schema here and returns the URL the service connects with. */
  provision(service: string): Promise<string>;
  drop(): Promise<void>;
};

function withDatabase(url: string, database: string): string {
  const parsed = new URL(url);
  parsed.pathname = `/${database}`;
  return parsed.toString();
}

export type TestDatabaseOptions = {
  /**
   * Every service's schema already migrated to the newest migration: a clone of a template built
   * once per set of migrations (template-database.ts), so the services launched on it find nothing
   * to apply. For stacks of real services, not for tests of migrations or of an empty database.
   * Only on the tests' shared server; a private server's database starts empty.
   */
  migrated?: boolean;
  /**
   * synchronous_commit off for every session of this database: a commit answers without waiting
   * for its WAL to reach the disk (what a test sees is unchanged: a commit is visible to other
   * sessions at once either way; only a crash of Postgres could lose the last moments). Only on the
   * tests' shared server; private servers (standbys, restarts, backups) keep durable commits.
   */
  asyncCommit?: boolean;
};

/**
 * A new database for one test file, empty unless `options.migrated`; `drop` removes it and
 * everything connected to it. `serverAdminUrl` picks another server (a private one, see
 * startPrivatePostgres).
 */
export async function createTestDatabase(
  label = 'test',
  serverAdminUrl = adminDatabaseUrl,
  options: TestDatabaseOptions = {},
): Promise<TestDatabase> {
  const name = `qw_${label
    .replace(/[^a-z0-9]/gi, '')
    .toLowerCase()
    .slice(0, 20)}_${randomBytes(4).toString('hex')}`;
  const shared = serverAdminUrl === adminDatabaseUrl;
  const template = options.migrated && shared ? await migratedTemplate(serverAdminUrl) : undefined;
  const admin = new pg.Client({ connectionString: serverAdminUrl });
  await admin.connect();
  try {
    await admin.query(`CREATE DATABASE "${name}"${template ? ` TEMPLATE "${template}"` : ''}`);
    if (options.asyncCommit && shared) await admin.query(`ALTER DATABASE "${name}" SET synchronous_commit = off`);
  } finally {
    await admin.end();
  }
  return existingTestDatabase(name, serverAdminUrl);
}

/**
 * A database that exists already on the server of `serverAdminUrl` (one a test restored from a
 * backup), handled as createTestDatabase's are: `provision` gives a service its role's URL there.
 */
export function existingTestDatabase(name: string, serverAdminUrl = adminDatabaseUrl): TestDatabase {
  const adminUrl = withDatabase(serverAdminUrl, name);
  return {
    name,
    adminUrl,
    async provision(service) {
      const schema = service.replace(/-/g, '_');
      const role = serviceRole(schema);
      await provisionSchema(adminUrl, schema, role);
      return urlForRole(adminUrl, role);
    },
    async drop() {
      const client = new pg.Client({ connectionString: serverAdminUrl });
      await client.connect();
      try {
        await client.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
      } finally {
        await client.end();
      }
    },
  };
}
