import { sql, type Kysely } from 'kysely';

/**
 * Each sealed private key names the key that sealed it (a 12-character id derived from the key),
 * so the sealing key can be replaced: provisioning opens each row with the key it names, and the
 * re-sealing command finds the rows still under the previous key. Rows sealed before keep null
 * (they open with whichever key held does) until the command re-seals them.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .alterTable('devices')
    .addColumn('private_key_sealed_by', 'text', (c) =>
      c.check(sql`private_key_sealed_by is null or private_key_sealed is not null`),
    )
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('devices').dropColumn('private_key_sealed_by').execute();
}
