import { sql, type Kysely } from 'kysely';

// A first e-mail verification no longer signs in: it hands out a short-lived, single-use token
// with which the person who opened the link chooses the password (account pre-hijacking).
export async function up(db: Kysely<any>): Promise<void> {
  await sql`alter table email_tokens drop constraint if exists email_tokens_purpose_check`.execute(db);
  await sql`alter table email_tokens add constraint email_tokens_purpose_check
            check (purpose in ('verify_email', 'reset_password', 'set_password'))`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`delete from email_tokens where purpose = 'set_password'`.execute(db);
  await sql`alter table email_tokens drop constraint if exists email_tokens_purpose_check`.execute(db);
  await sql`alter table email_tokens add constraint email_tokens_purpose_check
            check (purpose in ('verify_email', 'reset_password'))`.execute(db);
}
