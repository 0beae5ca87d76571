import { sql, type Kysely } from 'kysely';

/**
 * A preshared key per device (issue #25), sealed like its private key (AES-256-GCM under the
 * sealing key, the device id in the AAD with a `psk:` prefix) and naming the key that sealed it.
 * Devices made before keep null until their next key. A key a scheduled rotation replaced keeps
 * its own preshared key beside it for the grace period, as sealed on the device.
 */
export async function up(db: Kysely<any>): Promise<void> {
  for (const table of ['devices', 'retiring_keys']) {
    await db.schema
      .alterTable(table)
      .addColumn('preshared_key_sealed', 'text')
      .addColumn('preshared_key_sealed_by', 'text', (c) =>
        c.check(sql`preshared_key_sealed_by is null or preshared_key_sealed is not null`),
      )
      .execute();
  }
}

export async function down(db: Kysely<any>): Promise<void> {
  for (const table of ['devices', 'retiring_keys']) {
    await db.schema
      .alterTable(table)
      .dropColumn('preshared_key_sealed_by')
      .dropColumn('preshared_key_sealed')
      .execute();
  }
}
