import { sql, type Kysely } from 'kysely';
import type { ServiceGauge } from '@qw/platform';
import type { ProvisioningDatabase } from '../database.ts';

type Db = Kysely<ProvisioningDatabase>;

/**
 * What provisioning knows of each node, for /metrics: the peers it should carry (active devices
 * with a key, the figure telemetry's `qw_node_peers_reported` is compared with; keys in their
 * grace period are left out, as telemetry counts only current keys) and when its agent last
 * asked for its peers (every reconcile, once a minute).
 */
export function nodeGauges(db: Db): ServiceGauge[] {
  const rows = () =>
    sql<{ name: string; peers: string; seen: number | null }>`
      select n.name,
             (select count(*) from devices d
               where d.node_id = n.id and d.is_active and d.public_key is not null)::text as peers,
             extract(epoch from n.last_seen_at)::float8 as seen
      from nodes n`
      .execute(db)
      .then((result) => result.rows);
  return [
    {
      name: 'qw_node_peers_desired',
      help: 'Peers a node should carry: its active devices with a key',
      labelNames: ['node'],
      read: async () => (await rows()).map((row) => ({ labels: { node: row.name }, value: Number(row.peers) })),
    },
    {
      name: 'qw_node_last_seen_seconds',
      help: "Unix time a node's agent last asked provisioning for its peers (0 when never)",
      labelNames: ['node'],
      read: async () => (await rows()).map((row) => ({ labels: { node: row.name }, value: Number(row.seen ?? 0) })),
    },
  ];
}
