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
        // Each node's newest sample time first, in one pass over the latest rows, then its rows at
        // that time: a correlated max(ts) per row instead took seconds at 100,000 devices.
        const result = await sql<{ name: string; peers: string }>`
          with newest as (select node_id, max(ts) as ts from device_latest_telemetry group by node_id)
          select n.name, count(l.device_id)::text as peers
          from nodes n
          left join newest on newest.node_id = n.id
          left join device_latest_telemetry l on l.node_id = newest.node_id and l.ts = newest.ts
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
