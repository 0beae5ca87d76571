import {
  AppError,
  isNodeReachable,
  loadLevel,
  type AdminServer,
  type NodeStatus,
  type ResolverState,
} from '@qw/contracts';
import { deviceAddressCidrs, MAX_NODES, nodeSubnets } from '@qw/wireguard';

/**
 * What a node is and what it should carry, as functions of data: the registry, the node's
 * desired peers and the console's card of it all read these, so the next issues' regions and
 * per-node work change one place.
 */

/** A new node takes the lowest index no node has (an index is one pair of subnets); none left is a conflict. */
export function firstFreeNodeIndex(used: Iterable<number>): number {
  const taken = new Set(used);
  let index = 0;
  while (taken.has(index)) index++;
  if (index >= MAX_NODES) throw new AppError('conflict', 'Every node subnet is taken.');
  return index;
}

/** What a registering node is told: its id, its subnets, its own addresses in them and the resolvers. */
export function nodeAddressing(nodeId: string, nodeIndex: number, dns: string[]) {
  const subnets = nodeSubnets(nodeIndex);
  return {
    node_id: nodeId,
    ipv4_cidr: subnets.ipv4Cidr,
    ipv6_cidr: subnets.ipv6Cidr,
    node_ipv4: subnets.nodeIpv4,
    node_ipv6: subnets.nodeIpv6,
    dns,
  };
}

export type DesiredPeerRow = { public_key: string | null; ipv4: string | null; ipv6: string | null };

/**
 * One page of a node's desired peers from rows read in key order with one row more than the
 * page: that extra row only says a next page exists, which starts after this page's last key.
 * `presharedKey` opens a row's preshared key (null: it has none).
 */
export function desiredPeerPage<Row extends DesiredPeerRow>(
  rows: Row[],
  limit: number,
  presharedKey: (row: Row) => string | null = () => null,
) {
  const page = rows.slice(0, limit);
  return {
    peers: page.map((row) => ({
      public_key: row.public_key!,
      allowed_ips: deviceAddressCidrs(row.ipv4!, row.ipv6!),
      preshared_key: presharedKey(row),
    })),
    next: rows.length > limit ? page.at(-1)!.public_key! : null,
  };
}

/**
 * The newest handshake of each device in a batch of telemetry's reports (ids in lower case): a
 * late or repeated report never moves a device's handshake back.
 */
export function latestHandshakes(reports: Iterable<{ deviceId: string; latestHandshake: string }>) {
  const latest = new Map<string, string>();
  for (const { deviceId, latestHandshake } of reports) {
    const id = deviceId.toLowerCase();
    const known = latest.get(id);
    if (!known || Date.parse(latestHandshake) > Date.parse(known)) latest.set(id, latestHandshake);
  }
  return latest;
}

export type NodeFacts = {
  id: string;
  name: string;
  ip: string;
  ssh_user: string | null;
  ssh_port: number | null;
  region: string;
  city: string | null;
  endpoint: string;
  tags: string[];
  status: NodeStatus;
  capacity: number;
  draining: boolean;
  last_seen_at: Date | string | null;
  agent_version: string | null;
  agent_started_at: Date | string | null;
  resolver_state?: ResolverState | null;
  resolver_restarts?: number | null;
};

/**
 * A node as the console's Servers page shows it: its peers placed (active devices with a key), the
 * previous keys it keeps for a rotation's grace period, those connected now and its latest metrics
 * as telemetry has them (none: nothing connected, no metrics).
 */
export function serverCard(
  node: NodeFacts,
  peers: {
    placed: number;
    retiring: number;
    moved?: number;
    held?: number;
    /** Issue #26: the test accounts' peers, counted apart (not in the others) while they are hidden. */
    test?: { placed: number; retiring: number };
  },
  stats: { connected: number; metrics: AdminServer['metrics'] } | undefined,
  now: Date = new Date(),
): AdminServer {
  const iso = (at: Date | string | null) => (at ? new Date(at).toISOString() : null);
  return {
    id: node.id,
    name: node.name,
    ip: node.ip,
    ssh_user: node.ssh_user,
    ssh_port: node.ssh_port,
    region: node.region,
    city: node.city,
    endpoint: node.endpoint,
    tags: node.tags,
    status: node.status,
    capacity: node.capacity,
    reachable: node.status === 'active' && isNodeReachable(node.last_seen_at, now),
    // What the node carries, test accounts' devices included: its room does not depend on who they are.
    load: loadLevel(peers.placed + (peers.test?.placed ?? 0), node.capacity),
    draining: node.draining,
    peers_placed: peers.placed,
    peers_retiring: peers.retiring,
    peers_moved: peers.moved ?? 0,
    devices_held: peers.held ?? 0,
    peers_connected: stats?.connected ?? 0,
    peers_test: (peers.test?.placed ?? 0) + (peers.test?.retiring ?? 0),
    last_seen_at: iso(node.last_seen_at),
    agent_version: node.agent_version,
    agent_started_at: iso(node.agent_started_at),
    resolver: node.resolver_state ? { state: node.resolver_state, restarts: node.resolver_restarts ?? 0 } : null,
    metrics: stats?.metrics ?? null,
  };
}
