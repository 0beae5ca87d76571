import { randomUUID } from 'node:crypto';
import { sql, type Kysely } from 'kysely';
import { nodeSubnets } from '@qw/wireguard';
import type { ProvisioningDatabase } from '../../../provisioning/src/database.ts';

/**
 * Many devices at once, written with SQL into provisioning's schema (the benchmarks' and the
 * paging tests' organizations of a thousand devices; adding them through the API would take
 * minutes): a node of their own, and devices on it with keys, addresses and a handshake for
 * every third one.
 */
const addressesUsed = new Map<string, number>();
const nextAddress = (nodeId: string) => addressesUsed.get(nodeId) ?? 2;

/** A node in provisioning that reported just now; `index` its subnets' (keep it clear of registered ones). */
export async function seedNode(db: Kysely<ProvisioningDatabase>, name: string, index = 0): Promise<string> {
  const id = randomUUID();
  const subnets = nodeSubnets(index);
  await db
    .insertInto('nodes')
    .values({
      id,
      name,
      region: 'europe',
      ip: '198.18.0.1',
      endpoint: '198.18.0.1:51820',
      public_key: `${Buffer.from(randomUUID().replace(/-/g, '')).toString('base64').slice(0, 43)}=`,
      node_index: index,
      ipv4_cidr: subnets.ipv4Cidr,
      ipv6_cidr: subnets.ipv6Cidr,
      tags: [],
      last_seen_at: new Date(),
    })
    .execute();
  return id;
}

/**
 * `count` devices on the node for `owner` (and `org`), named `{prefix} {n}`; device n was made n
 * seconds ago, so 'Device 0' is the newest.
 */
export async function seedDevices(
  db: Kysely<ProvisioningDatabase>,
  nodeId: string,
  count: number,
  owner: { userId: string; orgId: string | null },
  prefix = 'Device',
): Promise<void> {
  const start = nextAddress(nodeId);
  await sql`insert into devices (id, user_id, org_id, name, platform, is_active, public_key, private_key_sealed, client_keys,
                                 node_id, ipv4, ipv6, key_created_at, created_at, latest_handshake)
    select gen_random_uuid(), ${owner.userId}::uuid, ${owner.orgId}::uuid, ${prefix} || ' ' || g,
           (array['ios','android','macos','windows','linux','router','other'])[1 + g % 7], true,
           encode(sha256((${randomUUID()} || g)::bytea), 'base64'), null, true, n.id,
           split_part(n.ipv4_cidr, '.', 1) || '.' || split_part(n.ipv4_cidr, '.', 2) || '.' ||
             ((${start}::int + g) / 256) || '.' || ((${start}::int + g) % 256),
           split_part(n.ipv6_cidr, '/', 1) || to_hex(${start}::int + g),
           now(), now() - g * interval '1 second',
           case when g % 3 = 0 then now() - interval '30 seconds' end
      from generate_series(0, ${count - 1}::int) g, nodes n where n.id = ${nodeId}::uuid`.execute(db);
  addressesUsed.set(nodeId, start + count);
}
