import { sql, type Kysely } from 'kysely';
import type { ServiceGauge } from '@qw/platform';
import type { ProvisioningDatabase } from '../database.ts';
import { nodeHealthFigures, resolverFigures, type NodeHealthRow } from './node-health-rules.ts';

type Db = Kysely<ProvisioningDatabase>;

type NodeRow = NodeHealthRow & { peers: string };

/**
 * What provisioning knows of each node, for /metrics: the peers placed on it (active devices with
 * a key, the figure telemetry's `qw_node_peers_reported` is compared with; keys in their grace
 * period are left out, as telemetry counts only current keys), when it was last heard from (its
 * agent reports every NODE_REPORT_SECONDS), and for the active nodes whether they are reachable
 * (reported within 30 s: placement skips the others and their devices read "Server unreachable")
 * and how long ago they reported, and whether their own resolver answered at that report (issue
 * #25). Pending and retired nodes have no agent to hear from.
 */
export function nodeGauges(db: Db): ServiceGauge[] {
  const rows = () =>
    sql<NodeRow>`
      select n.name, n.status,
             (select count(*) from devices d
               where d.node_id = n.id and d.is_active and d.public_key is not null)::text as peers,
             extract(epoch from n.last_seen_at)::float8 as seen,
             n.resolver_state
      from nodes n`
      .execute(db)
      .then((result) => result.rows);
  const health = async () => nodeHealthFigures(await rows(), new Date());
  return [
    {
      name: 'qw_node_peers_desired',
      help: 'Peers placed on a node, which it should carry: its active devices with a key',
      labelNames: ['node'],
      read: async () => (await rows()).map((row) => ({ labels: { node: row.name }, value: Number(row.peers) })),
    },
    {
      name: 'qw_node_last_seen_seconds',
      help: "Unix time a node's agent last reported, registered or fetched its peers (0 when never)",
      labelNames: ['node'],
      read: async () => (await rows()).map((row) => ({ labels: { node: row.name }, value: Number(row.seen ?? 0) })),
    },
    {
      name: 'qw_node_reachable',
      help: 'An active node that reported within the last 30 s: 1, else 0 (it takes no new devices)',
      labelNames: ['node'],
      read: async () => (await health()).map((row) => ({ labels: { node: row.node }, value: row.reachable })),
    },
    {
      name: 'qw_node_resolver_answering',
      help: "An active node's own resolver at its agent's latest report: 1 answering, 0 not (no figure when off)",
      labelNames: ['node'],
      read: async () =>
        resolverFigures(await rows()).map((row) => ({ labels: { node: row.node }, value: row.answering })),
    },
    {
      name: 'qw_node_report_age_seconds',
      help: "Seconds since an active node's agent last reported (every NODE_REPORT_SECONDS, 10 by default)",
      labelNames: ['node'],
      read: async () =>
        (await health())
          .filter((row) => row.age !== null)
          .map((row) => ({ labels: { node: row.node }, value: row.age! })),
    },
  ];
}
