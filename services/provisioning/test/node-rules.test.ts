import { describe, expect, it } from 'vitest';
import { AppError } from '@qw/contracts';
import { deviceAddressCidrs, MAX_NODES, nodeSubnets } from '@qw/wireguard';
import {
  desiredPeerPage,
  firstFreeNodeIndex,
  latestHandshakes,
  nodeAddressing,
  serverCard,
} from '../src/nodes/node-rules.ts';

describe('firstFreeNodeIndex', () => {
  it('gives the lowest index no node has', () => {
    expect(firstFreeNodeIndex([])).toBe(0);
    expect(firstFreeNodeIndex([0, 1, 3])).toBe(2);
    expect(firstFreeNodeIndex([1, 2])).toBe(0);
  });

  it('refuses with a conflict when every node subnet is taken', () => {
    const all = Array.from({ length: MAX_NODES }, (_, i) => i);
    expect(firstFreeNodeIndex(all.slice(1))).toBe(0);
    expect(() => firstFreeNodeIndex(all)).toThrow(AppError);
    try {
      firstFreeNodeIndex(all);
    } catch (error) {
      expect((error as AppError).code).toBe('conflict');
      expect((error as AppError).message).toBe('Every node subnet is taken.');
    }
  });
});

describe('nodeAddressing', () => {
  it('tells a node its id, its subnets, its own addresses and the resolvers', () => {
    const subnets = nodeSubnets(3);
    expect(nodeAddressing('n-1', 3, ['1.1.1.1'])).toEqual({
      node_id: 'n-1',
      ipv4_cidr: subnets.ipv4Cidr,
      ipv6_cidr: subnets.ipv6Cidr,
      node_ipv4: subnets.nodeIpv4,
      node_ipv6: subnets.nodeIpv6,
      dns: ['1.1.1.1'],
    });
  });
});

describe('desiredPeerPage', () => {
  const subnets = nodeSubnets(0);
  const row = (key: string, host: number) => ({
    public_key: key,
    ipv4: subnets.ipv4Cidr.replace(/\.0\/16$/, `.${host}`),
    ipv6: `${subnets.ipv6Cidr.split('/')[0]}${host}`,
  });

  it('gives at most `limit` peers with their allowed IPs, and the last key when one more row came', () => {
    const rows = [row('a', 2), row('b', 3), row('c', 4)];
    const page = desiredPeerPage(rows, 2);
    expect(page.peers).toEqual([
      { public_key: 'a', allowed_ips: deviceAddressCidrs(rows[0]!.ipv4, rows[0]!.ipv6), preshared_key: null },
      { public_key: 'b', allowed_ips: deviceAddressCidrs(rows[1]!.ipv4, rows[1]!.ipv6), preshared_key: null },
    ]);
    expect(page.next).toBe('b');
  });

  it("gives each peer the preshared key its row opens to (a device's own, or none)", () => {
    const rows = [row('a', 2), row('b', 3)];
    const page = desiredPeerPage(rows, 2, (r) => (r.public_key === 'a' ? 'psk-of-a' : null));
    expect(page.peers.map((peer) => peer.preshared_key)).toEqual(['psk-of-a', null]);
  });

  it('has no next page when the rows fit', () => {
    expect(desiredPeerPage([row('a', 2), row('b', 3)], 2).next).toBeNull();
    expect(desiredPeerPage([], 2)).toEqual({ peers: [], next: null });
  });
});

describe('latestHandshakes', () => {
  it('keeps the newest handshake of each device, by id in any case', () => {
    const id = 'AAAAAAAA-0000-4000-8000-000000000001';
    const other = 'aaaaaaaa-0000-4000-8000-000000000002';
    const latest = latestHandshakes([
      { deviceId: id, latestHandshake: '2026-11-24T10:00:00.000Z' },
      { deviceId: other, latestHandshake: '2026-11-24T09:00:00.000Z' },
      { deviceId: id.toLowerCase(), latestHandshake: '2026-11-24T11:00:00.000Z' },
      { deviceId: id, latestHandshake: '2026-11-24T10:30:00.000Z' },
    ]);
    expect(Object.fromEntries(latest)).toEqual({
      [id.toLowerCase()]: '2026-11-24T11:00:00.000Z',
      [other]: '2026-11-24T09:00:00.000Z',
    });
  });
});

describe('serverCard', () => {
  const node = {
    id: 'n-1',
    name: 'fra-1',
    ip: '203.0.113.7',
    ssh_user: 'root',
    ssh_port: 22,
    region: 'eu',
    city: 'Frankfurt',
    endpoint: '203.0.113.7:51820',
    tags: ['gaming'],
    status: 'active' as const,
    capacity: 10,
    draining: false,
    last_seen_at: new Date('2026-11-24T10:00:00.000Z'),
    agent_version: '1.2.3',
    agent_started_at: new Date('2026-11-24T09:00:00.000Z'),
    resolver_state: 'answering' as const,
    resolver_restarts: 1,
  };
  const now = new Date('2026-11-24T10:00:20.000Z');

  it('shows the peers placed, the retiring keys, those connected and the metrics telemetry has', () => {
    const metrics = { cpu_percent: 5 } as never;
    expect(serverCard(node, { placed: 6, retiring: 1, moved: 2, held: 1 }, { connected: 2, metrics }, now)).toEqual({
      id: 'n-1',
      name: 'fra-1',
      ip: '203.0.113.7',
      ssh_user: 'root',
      ssh_port: 22,
      region: 'eu',
      city: 'Frankfurt',
      endpoint: '203.0.113.7:51820',
      tags: ['gaming'],
      status: 'active',
      capacity: 10,
      reachable: true,
      load: 'medium',
      draining: false,
      peers_placed: 6,
      peers_retiring: 1,
      peers_moved: 2,
      devices_held: 1,
      peers_connected: 2,
      peers_test: 0,
      last_seen_at: '2026-11-24T10:00:00.000Z',
      agent_version: '1.2.3',
      agent_started_at: '2026-11-24T09:00:00.000Z',
      resolver: { state: 'answering', restarts: 1 },
      metrics,
    });
  });

  it("counts the test accounts' peers apart, and the node's load with them (issue #26)", () => {
    const card = serverCard(node, { placed: 3, retiring: 0, test: { placed: 4, retiring: 1 } }, undefined, now);
    expect(card).toMatchObject({ peers_placed: 3, peers_retiring: 0, peers_test: 5, load: 'medium' });
    expect(serverCard(node, { placed: 3, retiring: 0 }, undefined, now).load).toBe('low');
  });

  it("shows no resolver for a node whose agent never reported one (an agent older than issue #25's)", () => {
    const { resolver_state: _state, resolver_restarts: _restarts, ...older } = node;
    expect(serverCard(older, { placed: 0, retiring: 0 }, undefined, now).resolver).toBeNull();
    expect(
      serverCard({ ...node, resolver_state: null }, { placed: 0, retiring: 0 }, undefined, now).resolver,
    ).toBeNull();
  });

  it('reads a node silent for more than 30 s, or not active, as unreachable, and a full one as high load', () => {
    const later = new Date('2026-11-24T10:00:31.000Z');
    expect(serverCard(node, { placed: 8, retiring: 0 }, undefined, now)).toMatchObject({
      reachable: true,
      load: 'high',
    });
    expect(serverCard(node, { placed: 1, retiring: 0 }, undefined, later)).toMatchObject({
      reachable: false,
      load: 'low',
    });
    expect(serverCard({ ...node, status: 'retired' }, { placed: 0, retiring: 0 }, undefined, now).reachable).toBe(
      false,
    );
  });

  it('shows nothing connected and no metrics when telemetry has none, and never seen as null', () => {
    const card = serverCard({ ...node, last_seen_at: null }, { placed: 0, retiring: 0 }, undefined);
    expect(card.peers_placed).toBe(0);
    expect(card.peers_connected).toBe(0);
    expect(card.metrics).toBeNull();
    expect(card.last_seen_at).toBeNull();
  });
});
