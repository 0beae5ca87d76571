import { sql, type Kysely } from 'kysely';

/**
 * Organizations (#12): invitations by e-mail (only the hash of the link's token is kept), the
 * audit log (no client addresses, ever), and billing's subscriptions of organizations as identity
 * sees them (an organization is Active while one of them entitles it).
 */
export async function up(db: Kysely<any>): Promise<void> {
  await sql`alter table org_members add constraint org_members_role
            check (role in ('owner', 'admin', 'member'))`.execute(db);

  await db.schema
    .createTable('invitations')
    .addColumn('id', 'uuid', (c) => c.primaryKey())
    .addColumn('org_id', 'uuid', (c) => c.notNull().references('organizations.id').onDelete('cascade'))
    .addColumn('email', 'text', (c) => c.notNull())
    .addColumn('role', 'text', (c) => c.notNull())
    .addColumn('token_hash', 'text', (c) => c.notNull().unique())
    .addColumn('invited_by', 'uuid', (c) => c.references('users.id').onDelete('set null'))
    .addColumn('expires_at', 'timestamptz', (c) => c.notNull())
    .addColumn('accepted_at', 'timestamptz')
    .addColumn('revoked_at', 'timestamptz')
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addCheckConstraint('invitations_email_lowercase', sql`email = lower(email)`)
    .addCheckConstraint('invitations_role', sql`role in ('admin', 'member')`)
    .execute();
  // The pending list and the cap count read an organization's invitations that are still open.
  await sql`create index invitations_open on invitations (org_id, created_at desc)
            where accepted_at is null and revoked_at is null`.execute(db);

  await db.schema
    .createTable('audit_log')
    .addColumn('id', 'uuid', (c) => c.primaryKey())
    .addColumn('org_id', 'uuid', (c) => c.notNull())
    .addColumn('at', 'timestamptz', (c) => c.notNull())
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('actor_id', 'uuid')
    .addColumn('actor_name', 'text')
    .addColumn('target_kind', 'text')
    .addColumn('target_id', 'text')
    .addColumn('target_name', 'text')
    // The person an entry is about besides its actor: the member, or a device's assignee.
    .addColumn('person_id', 'uuid')
    .addColumn('details', 'jsonb', (c) => c.notNull().defaultTo(sql`'{}'::jsonb`))
    .execute();
  // Pages go newest first by (at, id); the filters by kind and by person keep that order.
  await sql`create index audit_log_page on audit_log (org_id, at desc, id desc)`.execute(db);
  await sql`create index audit_log_kind on audit_log (org_id, kind, at desc, id desc)`.execute(db);
  await sql`create index audit_log_actor on audit_log (org_id, actor_id, at desc, id desc)`.execute(db);
  await sql`create index audit_log_person on audit_log (org_id, person_id, at desc, id desc)`.execute(db);
  // A device's name for entries whose event carries none (suspended, removed…): its last entry that had one.
  await sql`create index audit_log_device on audit_log (target_id, at desc) where target_kind = 'device'`.execute(db);

  await db.schema
    .createTable('org_subscriptions')
    .addColumn('subscription_id', 'uuid', (c) => c.primaryKey())
    .addColumn('org_id', 'uuid', (c) => c.notNull())
    .addColumn('plan_code', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    // occurredAt of the newest billing event applied: an older one arriving later changes nothing.
    .addColumn('updated_at', 'timestamptz', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('org_subscriptions_org').on('org_subscriptions').column('org_id').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('org_subscriptions').execute();
  await db.schema.dropTable('audit_log').execute();
  await db.schema.dropTable('invitations').execute();
  await sql`alter table org_members drop constraint if exists org_members_role`.execute(db);
}
