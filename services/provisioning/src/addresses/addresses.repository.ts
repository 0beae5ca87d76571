import type { Kysely } from 'kysely';
import type { ProvisioningDatabase } from '../database.ts';

type Db = Kysely<ProvisioningDatabase>;

/**
 * The node's IPv4 addresses in use: its devices', those of keys in their grace period, and those
 * of peers moved devices left on it.
 */
export async function takenIpv4s(tx: Db, nodeId: string): Promise<string[]> {
  const rows = await tx
    .selectFrom('devices')
    .select('ipv4')
    .where('node_id', '=', nodeId)
    .where('ipv4', 'is not', null)
    .unionAll(tx.selectFrom('retiring_keys').select('ipv4').where('node_id', '=', nodeId))
    .unionAll(tx.selectFrom('moved_peers').select('ipv4').where('node_id', '=', nodeId))
    .execute();
  return rows.map((row) => row.ipv4!);
}
