import { type Kysely, sql } from 'kysely';

/**
 * A deleted account's plan ends in the ledger at once and at the provider as soon as it answers:
 * `provider_cancel_due` marks a subscription still to be cancelled there, so a provider that is
 * down delays the cancellation but never loses it.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .alterTable('subscriptions')
    .addColumn('provider_cancel_due', 'boolean', (c) => c.notNull().defaultTo(false))
    .execute();
  await sql`create index subscriptions_provider_cancel_due on subscriptions (id) where provider_cancel_due`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`drop index subscriptions_provider_cancel_due`.execute(db);
  await db.schema.alterTable('subscriptions').dropColumn('provider_cancel_due').execute();
}
