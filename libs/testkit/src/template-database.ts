import { createHash } from 'node:crypto';
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import pg from 'pg';
import { connectDatabase, migrateToLatest, provisionSchema, serviceRole, urlForRole } from '@qw/platform/db';
import { repoRoot } from './processes.ts';

/**
 * A database on the tests' Postgres with every service's schema migrated to the newest migration,
 * which createTestDatabase({ migrated: true }) clones (`CREATE DATABASE … TEMPLATE`) instead of
 * each test file's services migrating an empty one: a clone costs about what an empty database
 * does, and the migrations of five services cost seconds per file on this machine.
 *
 * Its name holds a hash of every migration and of how schemas are provisioned, so a change to any
 * of them builds a new template (once, by whichever test process asks first, under an advisory
 * lock) and no test ever clones a stale one. A service whose schema is there migrates as before at
 * its start and finds nothing left to apply.
 */

/** The services with migrations (services/<name>/migrations), whose schema is named after them. */
function servicesWithMigrations(): Array<{ service: string; folder: string }> {
  const services = path.join(repoRoot, 'services');
  return readdirSync(services)
    .sort()
    .map((service) => ({ service, folder: path.join(services, service, 'migrations') }))
    .filter(({ folder }) => existsSync(folder));
}

/** Every file whose change can change what the template holds. */
function templateInputs(): string[] {
  const platformDb = path.join(repoRoot, 'libs/platform/src/db');
  const files = readdirSync(platformDb).map((file) => path.join(platformDb, file));
  for (const { folder } of servicesWithMigrations())
    for (const file of readdirSync(folder).sort()) files.push(path.join(folder, file));
  return files.filter((file) => /\.(ts|js|mjs)$/.test(file)).sort();
}

const templatePrefix = 'qw_template_';

/** The template's name for the migrations as they are in this checkout. */
export function migratedTemplateName(): string {
  const hash = createHash('sha256');
  for (const file of templateInputs())
    hash.update(path.relative(repoRoot, file)).update('\0').update(readFileSync(file));
  return `${templatePrefix}${hash.digest('hex').slice(0, 16)}`;
}

function withDatabase(url: string, database: string): string {
  const parsed = new URL(url);
  parsed.pathname = `/${database}`;
  return parsed.toString();
}

/** Templates built longer ago than this belong to older checkouts; the next build drops them. */
const staleAfterMs = 24 * 3600_000;

let ready: Promise<string> | undefined;

/** The migrated template on that server, built first if missing; answers its name. */
export function migratedTemplate(serverAdminUrl: string): Promise<string> {
  ready ??= ensureTemplate(serverAdminUrl).catch((error: unknown) => {
    ready = undefined;
    throw error;
  });
  return ready;
}

async function ensureTemplate(serverAdminUrl: string): Promise<string> {
  const name = migratedTemplateName();
  const admin = new pg.Client({ connectionString: serverAdminUrl });
  await admin.connect();
  try {
    const exists = async () =>
      (await admin.query('select 1 from pg_database where datname = $1', [name])).rowCount === 1;
    if (await exists()) return name;
    // One builder per server at a time; the others wait here and then find it built.
    await admin.query(`select pg_advisory_lock(hashtext('qw_test_template'))`);
    try {
      if (!(await exists())) await buildTemplate(admin, serverAdminUrl, name);
    } finally {
      await admin.query(`select pg_advisory_unlock(hashtext('qw_test_template'))`);
    }
    return name;
  } finally {
    await admin.end();
  }
}

async function buildTemplate(admin: pg.Client, serverAdminUrl: string, name: string): Promise<void> {
  // A build under another name, renamed when whole: a test never clones a half-migrated template.
  const building = `${name}_building`;
  await admin.query(`DROP DATABASE IF EXISTS "${building}" WITH (FORCE)`);
  await admin.query(`CREATE DATABASE "${building}"`);
  const buildingUrl = withDatabase(serverAdminUrl, building);
  for (const { service, folder } of servicesWithMigrations()) {
    const schema = service.replace(/-/g, '_');
    const role = serviceRole(schema);
    await provisionSchema(buildingUrl, schema, role);
    // Migrated as the service's own role, as the service migrates at its start: it owns what it makes.
    const database = connectDatabase(urlForRole(buildingUrl, role), schema, 1);
    try {
      await migrateToLatest(database.db, schema, folder);
    } finally {
      await database.db.destroy();
    }
  }
  await admin.query(`ALTER DATABASE "${building}" RENAME TO "${name}"`);
  // Nobody connects to it (a clone needs it without connections); the comment dates it.
  await admin.query(`ALTER DATABASE "${name}" WITH ALLOW_CONNECTIONS false`);
  await admin.query(`COMMENT ON DATABASE "${name}" IS '${new Date().toISOString()}'`);
  await dropStaleTemplates(admin, name);
}

async function dropStaleTemplates(admin: pg.Client, current: string): Promise<void> {
  const { rows } = await admin.query<{ datname: string; built: string | null }>(
    `select datname, shobj_description(oid, 'pg_database') as built from pg_database
     where datname like '${templatePrefix}%' and datname <> $1`,
    [current],
  );
  for (const { datname, built } of rows) {
    const age = built ? Date.now() - Date.parse(built) : Number.POSITIVE_INFINITY;
    if (!(age > staleAfterMs)) continue;
    await admin.query(`DROP DATABASE IF EXISTS "${datname}"`).catch(() => undefined);
  }
}
