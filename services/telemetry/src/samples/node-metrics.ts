import { sql, type Kysely } from 'kysely';
import type { ServiceGauge } from '@qw/platform';
import type { TelemetryDatabase } from '../database.ts';

type Db = Kysely<TelemetryDatabase>;

/**
 * What the nodes say of themselves, for /metrics: the peers in each node's newest peer sample
 * (those whose key telemetry knows on that node, the figure provisioning's
 * `qw_node_peers_desired` is compared with: the difference is the reconcile drift) and when the
 * node last sent host metrics (every 15 s while its agent runs).
 */
export function nodeGauges(db: Db): ServiceGauge[] {
  return [
    {
      name: 'qw_node_peers_reported',
      help: "Peers in a node's newest sample that are placed on it",
      labelNames: ['node'],
      read: async () => {
        const result = await sql<{ name: string; peers: string }>`
          select n.name, count(l.device_id)::text as peers
          from nodes n
          left join device_latest_telemetry l on l.node_id = n.id
            and l.ts = (select max(ts) from device_latest_telemetry where node_id = n.id)
          group by n.name`.execute(db);
        return result.rows.map((row) => ({ labels: { node: row.name }, value: Number(row.peers) }));
      },
    },
    {
      name: 'qw_node_last_sample_seconds',
      help: 'Unix time of the newest host sample of a node (0 when none is kept)',
      labelNames: ['node'],
      read: async () => {
        const result = await sql<{ name: string; at: number | null }>`
          select n.name, extract(epoch from (select max(ts) from vps_metrics where host_id = n.id))::float8 as at
          from nodes n`.execute(db);
        return result.rows.map((row) => ({ labels: { node: row.name }, value: Number(row.at ?? 0) }));
      },
    },
  ];
}
