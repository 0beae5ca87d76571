import { sql, type Kysely } from 'kysely';

/**
 * The fleet (issue #23). Nodes carry a city, a capacity in peers and a lifecycle: an operator adds
 * a server in the console (`pending`, with an enrolment token), its host enrols and registers
 * (`active`), and it is retired at the end (`retired`: credentials revoked, no peers). A node
 * reports every 10 s; `last_seen_at` is that report, `agent_version` and `agent_started_at` what
 * it said about itself. Regions are the product's three (older names become the nearest).
 * An enrolment token is kept only as its hash, valid an hour and once; each credential issued to
 * a node is kept by its public key, so retiring the node revokes exactly those.
 * Devices choose a region (or `auto`, with the customer's country) and remember when their
 * configuration changed because they moved to another node (cleared by the next download); a
 * device a drain could not move is held (`held_since`) until a node of its region has room. The
 * peer a moved device left on its old node stays there (`moved_peers`) until the device is
 * seen through its new node or the grace period ends.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await sql`update nodes set region = case
      when region in ('north-america', 'europe', 'asia') then region
      when region ~* '^(us|na|ca|north|america|mx)' then 'north-america'
      when region ~* '^(ap|asia|jp|sg|in|kr|hk|tw)' then 'asia'
      else 'europe' end`.execute(db);
  await db.schema
    .alterTable('nodes')
    .addColumn('city', 'text')
    .addColumn('capacity', 'integer', (c) => c.notNull().defaultTo(1000).check(sql`capacity > 0`))
    .addColumn('status', 'text', (c) =>
      c.notNull().defaultTo('active').check(sql`status in ('pending', 'active', 'retired')`),
    )
    .addColumn('agent_version', 'text')
    .addColumn('agent_started_at', 'timestamptz')
    .addColumn('enrolled_at', 'timestamptz')
    .addColumn('retired_at', 'timestamptz')
    .execute();
  await sql`alter table nodes alter column public_key drop not null`.execute(db);
  await sql`alter table nodes add constraint nodes_region_known check (region in ('north-america', 'europe', 'asia'))`.execute(
    db,
  );
  await sql`alter table nodes add constraint nodes_active_has_key check (status <> 'active' or public_key is not null)`.execute(
    db,
  );
  await db.schema
    .createTable('node_enrolments')
    .addColumn('token_hash', 'text', (c) => c.primaryKey())
    .addColumn('node_id', 'uuid', (c) => c.notNull().references('nodes.id'))
    .addColumn('created_by', 'uuid', (c) => c.notNull())
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn('expires_at', 'timestamptz', (c) => c.notNull())
    .addColumn('used_at', 'timestamptz')
    .execute();
  await db.schema.createIndex('node_enrolments_node').on('node_enrolments').column('node_id').execute();
  await db.schema
    .createTable('node_credentials')
    .addColumn('user_public_key', 'text', (c) => c.primaryKey())
    .addColumn('node_id', 'uuid', (c) => c.notNull().references('nodes.id'))
    .addColumn('issued_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn('revoked_at', 'timestamptz')
    .execute();
  await db.schema.createIndex('node_credentials_node').on('node_credentials').column('node_id').execute();
  await db.schema
    .alterTable('devices')
    .addColumn('region_choice', 'text', (c) =>
      c.notNull().defaultTo('auto').check(sql`region_choice in ('auto', 'north-america', 'europe', 'asia')`),
    )
    .addColumn('country', 'text', (c) => c.check(sql`country ~ '^[A-Z]{2}$'`))
    .addColumn('config_changed_at', 'timestamptz')
    .addColumn('held_since', 'timestamptz')
    .execute();
  await db.schema
    .createTable('moved_peers')
    .addColumn('node_id', 'uuid', (c) => c.notNull().references('nodes.id'))
    .addColumn('public_key', 'text', (c) => c.notNull())
    .addColumn('device_id', 'uuid', (c) => c.notNull())
    .addColumn('ipv4', 'text', (c) => c.notNull())
    .addColumn('ipv6', 'text', (c) => c.notNull())
    .addColumn('expires_at', 'timestamptz', (c) => c.notNull())
    .addPrimaryKeyConstraint('moved_peers_pk', ['node_id', 'public_key'])
    .execute();
  await db.schema.createIndex('moved_peers_device').on('moved_peers').column('device_id').execute();
  await db.schema.createIndex('moved_peers_expires').on('moved_peers').column('expires_at').execute();
  await db.schema
    .createIndex('moved_peers_node_ipv4')
    .on('moved_peers')
    .columns(['node_id', 'ipv4'])
    .unique()
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('moved_peers').execute();
  await db.schema
    .alterTable('devices')
    .dropColumn('held_since')
    .dropColumn('config_changed_at')
    .dropColumn('country')
    .dropColumn('region_choice')
    .execute();
  await db.schema.dropTable('node_credentials').execute();
  await db.schema.dropTable('node_enrolments').execute();
  await sql`alter table nodes drop constraint nodes_active_has_key`.execute(db);
  await sql`alter table nodes drop constraint nodes_region_known`.execute(db);
  await db.schema
    .alterTable('nodes')
    .dropColumn('retired_at')
    .dropColumn('enrolled_at')
    .dropColumn('agent_started_at')
    .dropColumn('agent_version')
    .dropColumn('status')
    .dropColumn('capacity')
    .dropColumn('city')
    .execute();
}
