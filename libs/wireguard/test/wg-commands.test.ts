import { describe, expect, it } from 'vitest';
import type { DesiredPeer, ReconcilePlan, WgDumpPeer } from '../src/index.ts';
import { planReconcile, wgRemovePeerArgs, wgSetPeerArgs, wgShowDumpArgs } from '../src/index.ts';

const key = (n: number) => {
  const bytes = Buffer.alloc(32);
  bytes.writeUInt32BE(n, 0);
  bytes.writeUInt32BE((0xdeadbeef ^ n) >>> 0, 28);
  return bytes.toString('base64');
};

const actualPeer = (publicKey: string, allowedIps: string[]): Pick<WgDumpPeer, 'publicKey' | 'allowedIps'> => ({
  publicKey,
  allowedIps,
});

/**
 * What `wg` would hold after running the plan (allowed IPs sorted: wg keeps no order that
 * matters): the oracle for the planner tests. Throws on a step `wg` would not do what it means.
 */
function applyPlan(
  actual: readonly Pick<WgDumpPeer, 'publicKey' | 'allowedIps'>[],
  plan: ReconcilePlan,
): Map<string, string[]> {
  const state = peerTable(actual);
  for (const publicKey of plan.remove) {
    if (!state.delete(publicKey)) throw new Error('plan removes a peer that is not there');
  }
  for (const peer of plan.update) {
    if (!state.has(peer.publicKey)) throw new Error('plan updates a peer that is not there');
    state.set(peer.publicKey, [...peer.allowedIps].sort());
  }
  for (const peer of plan.add) {
    if (state.has(peer.publicKey)) throw new Error('plan adds a peer that is already there');
    state.set(peer.publicKey, [...peer.allowedIps].sort());
  }
  return state;
}

function peerTable(peers: readonly { publicKey: string; allowedIps: readonly string[] }[]): Map<string, string[]> {
  return new Map(peers.map((peer) => [peer.publicKey, [...peer.allowedIps].sort()]));
}

describe('wg argument builders', () => {
  it('builds `wg set <if> peer <key> allowed-ips <a>,<b>`', () => {
    expect(wgSetPeerArgs('wg0', { publicKey: key(1), allowedIps: ['10.64.0.2/32', 'fd7a:5157:7769::2/128'] })).toEqual([
      'set',
      'wg0',
      'peer',
      key(1),
      'allowed-ips',
      '10.64.0.2/32,fd7a:5157:7769::2/128',
    ]);
    expect(wgSetPeerArgs('wg0', { publicKey: key(1), allowedIps: [] })).toEqual([
      'set',
      'wg0',
      'peer',
      key(1),
      'allowed-ips',
      '',
    ]);
  });

  it('accepts every name wg-quick would give an interface', () => {
    for (const iface of ['wg0', 'qw-node-63', 'x'.repeat(15), 'a.b_c=d+e'])
      expect(wgShowDumpArgs(iface)[1]).toBe(iface);
  });

  it('builds remove and dump', () => {
    expect(wgRemovePeerArgs('qw-node-1', key(2))).toEqual(['set', 'qw-node-1', 'peer', key(2), 'remove']);
    expect(wgShowDumpArgs('wg0')).toEqual(['show', 'wg0', 'dump']);
  });

  it.each(['', 'x'.repeat(16), 'wg0; rm -rf /', '-h', 'wg 0', 'wg0\n', 'all', 'interfaces'])(
    'refuses interface %j',
    (iface) => {
      expect(() => wgShowDumpArgs(iface)).toThrow(/interface name/);
      expect(() => wgRemovePeerArgs(iface, key(1))).toThrow(/interface name/);
    },
  );

  it('refuses a bad key or allowed IP, without echoing the key', () => {
    expect(() => wgSetPeerArgs('wg0', { publicKey: '--help', allowedIps: [] })).toThrow(/public key/);
    expect(() => wgRemovePeerArgs('wg0', `${key(1)} remove`)).toThrow(
      expect.objectContaining({ message: expect.not.stringContaining(key(1)) }),
    );
    expect(() => wgSetPeerArgs('wg0', { publicKey: key(1), allowedIps: ['10.64.0.2/32,10.0.0.0/8'] })).toThrow(
      /allowed IP/,
    );
    expect(() => wgSetPeerArgs('wg0', { publicKey: key(1), allowedIps: ['10.64.0.300/32'] })).toThrow(/allowed IP/);
  });
});

describe('planReconcile', () => {
  it('adds missing peers, removes stale ones, updates changed allowed IPs and leaves the rest', () => {
    const desired: DesiredPeer[] = [
      { publicKey: key(1), allowedIps: ['10.64.0.2/32', 'fd7a:5157:7769::2/128'] },
      { publicKey: key(2), allowedIps: ['10.64.0.3/32', 'fd7a:5157:7769::3/128'] },
      { publicKey: key(3), allowedIps: ['10.64.0.4/32'] },
    ];
    const actual = [
      actualPeer(key(1), ['10.64.0.2/32', 'fd7a:5157:7769::2/128']),
      actualPeer(key(2), ['10.64.0.9/32', 'fd7a:5157:7769::9/128']),
      actualPeer(key(4), ['10.64.0.5/32']),
    ];
    const plan = planReconcile(desired, actual);
    expect(plan).toEqual({ add: [desired[2]], remove: [key(4)], update: [desired[1]] });
    expect(applyPlan(actual, plan)).toEqual(peerTable(desired));
  });

  it('compares allowed IPs as sets in the form wg prints them', () => {
    const actual = [actualPeer(key(1), ['10.64.0.2/32', 'fd7a:5157:7769::2/128'])];
    const same: string[][] = [
      ['fd7a:5157:7769::2/128', '10.64.0.2/32'],
      ['10.64.0.2', 'FD7A:5157:7769:0:0:0:0:2/128'],
      ['10.64.0.2/32', '10.64.0.2/32', 'fd7a:5157:7769::2'],
    ];
    for (const allowedIps of same)
      expect(planReconcile([{ publicKey: key(1), allowedIps }], actual)).toEqual({ add: [], remove: [], update: [] });
    const different: string[][] = [
      ['10.64.0.2/32'],
      ['10.64.0.2/32', 'fd7a:5157:7769::2/128', '10.64.0.3/32'],
      ['10.64.0.2/31', 'fd7a:5157:7769::2/128'],
      [],
    ];
    for (const allowedIps of different)
      expect(planReconcile([{ publicKey: key(1), allowedIps }], actual).update).toHaveLength(1);
  });

  it('handles the empty cases', () => {
    expect(planReconcile([], [])).toEqual({ add: [], remove: [], update: [] });
    expect(planReconcile([], [actualPeer(key(1), [])]).remove).toEqual([key(1)]);
    expect(planReconcile([{ publicKey: key(1), allowedIps: [] }], []).add).toHaveLength(1);
  });

  it('refuses a desired set with a public key twice, or a bad key', () => {
    const peer = { publicKey: key(1), allowedIps: ['10.64.0.2/32'] };
    expect(() => planReconcile([peer, { ...peer, allowedIps: ['10.64.0.3/32'] }], [])).toThrow(/same public key twice/);
    expect(() => planReconcile([{ publicKey: 'x', allowedIps: [] }], [])).toThrow(/public key/);
  });

  it('plans 10,000 peers correctly', () => {
    const total = 10_000;
    const ipv4 = (n: number) => `10.64.${Math.floor((n + 2) / 256)}.${(n + 2) % 256}/32`;
    const ipv6 = (n: number) => `fd7a:5157:7769::${(n + 2).toString(16)}/128`;
    const desired: DesiredPeer[] = Array.from({ length: total }, (_, n) => ({
      publicKey: key(n),
      allowedIps: [ipv4(n), ipv6(n)],
    }));
    // On the node: peers 0..8999 (500 of them with stale addresses, in reverse order of IPs), plus 700 stale peers.
    const actual = [
      ...Array.from({ length: 9_000 }, (_, n) =>
        actualPeer(key(n), n % 18 === 0 ? [ipv4(n + 20_000)] : [ipv6(n), ipv4(n)]),
      ),
      ...Array.from({ length: 700 }, (_, n) => actualPeer(key(50_000 + n), [ipv4(30_000 + n)])),
    ].reverse();
    const plan = planReconcile(desired, actual);
    expect(plan.add.map((peer) => peer.publicKey).sort()).toEqual(
      Array.from({ length: 1_000 }, (_, n) => key(9_000 + n)).sort(),
    );
    expect(plan.remove.sort()).toEqual(Array.from({ length: 700 }, (_, n) => key(50_000 + n)).sort());
    expect(plan.update).toHaveLength(500);
    expect(plan.update.every((peer) => Number(Buffer.from(peer.publicKey, 'base64').readUInt32BE(0)) % 18 === 0)).toBe(
      true,
    );
    expect(applyPlan(actual, plan)).toEqual(peerTable(desired));
    expect(
      planReconcile(
        desired,
        [...applyPlan(actual, plan)].map(([publicKey, allowedIps]) => actualPeer(publicKey, allowedIps)),
      ),
    ).toEqual({
      add: [],
      remove: [],
      update: [],
    });
  });
});
