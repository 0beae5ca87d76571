import { sql, type Kysely } from 'kysely';
import type { IdentityDatabase } from '../database.ts';

type Db = Kysely<IdentityDatabase>;

/** The contact form's messages: queries only. */
export async function insertContactMessage(db: Db, message: { id: string; email: string; message: string }) {
  await db
    .insertInto('contact_messages')
    .values({ ...message, forwarded_at: null })
    .execute();
}

/** The message, while it has not been forwarded to support. */
export function findUnforwarded(db: Db, id: string) {
  return db
    .selectFrom('contact_messages')
    .selectAll()
    .where('id', '=', id)
    .where('forwarded_at', 'is', null)
    .executeTakeFirst();
}

export async function markForwarded(db: Db, id: string): Promise<void> {
  await db.updateTable('contact_messages').set({ forwarded_at: sql<Date>`now()` }).where('id', '=', id).execute();
}

/** Ids of the oldest messages not yet forwarded, at most `limit`. */
export async function listUnforwardedIds(db: Db, limit: number): Promise<string[]> {
  const rows = await db
    .selectFrom('contact_messages')
    .select('id')
    .where('forwarded_at', 'is', null)
    .orderBy('created_at')
    .limit(limit)
    .execute();
  return rows.map((row) => row.id);
}
