import type { Kysely } from 'kysely';

/**
 * A checkout started inside the app by a signed-in person: who started it (the payment page comes
 * back to the app, not to account creation) and, for a Business plan, the name they chose for the
 * organization it makes, or the organization of theirs it pays for again.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .alterTable('checkout_sessions')
    .addColumn('buyer_id', 'uuid')
    .addColumn('org_name', 'text')
    .addColumn('for_org_id', 'uuid')
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  for (const column of ['for_org_id', 'org_name', 'buyer_id'])
    await db.schema.alterTable('checkout_sessions').dropColumn(column).execute();
}
