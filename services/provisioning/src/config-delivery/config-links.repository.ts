import type { Kysely } from 'kysely';
import type { ProvisioningDatabase } from '../database.ts';

type Db = Kysely<ProvisioningDatabase>;

export async function insertConfigLinks(
  db: Db,
  links: Array<{ token_hash: string; device_id: string; format: 'conf' | 'qr'; expires_at: Date }>,
): Promise<void> {
  await db.insertInto('config_links').values(links).execute();
}

/** Marks the link used if it is unused and unexpired; answers its device, or undefined. */
export function spendConfigLink(
  db: Db,
  link: { token_hash: string; device_id: string; format: 'conf' | 'qr' },
): Promise<{ device_id: string } | undefined> {
  return db
    .updateTable('config_links')
    .set({ used_at: new Date() })
    .where('token_hash', '=', link.token_hash)
    .where('device_id', '=', link.device_id)
    .where('format', '=', link.format)
    .where('used_at', 'is', null)
    .where('expires_at', '>', new Date())
    .returning('device_id')
    .executeTakeFirst();
}

export async function deleteConfigLinksBefore(db: Db, before: Date): Promise<void> {
  await db.deleteFrom('config_links').where('expires_at', '<', before).execute();
}
