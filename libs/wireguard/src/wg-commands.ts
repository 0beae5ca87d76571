/**
 * What the node agent runs: `wg` argument vectors (for execFile/spawn, never a shell) and the plan
 * that brings an interface's peers to the desired set.
 */
import { canonicalCidr } from './ip-address.ts';
import { isWireGuardKey } from './keys.ts';
import { presharedKeyDigest, type WgDumpPeer } from './wg-dump.ts';

/** `presharedKey` absent or null: the peer has none. */
export type DesiredPeer = { publicKey: string; allowedIps: readonly string[]; presharedKey?: string | null };

/**
 * `add`/`update` go to wgSetPeerArgs, `remove` (public keys) to wgRemovePeerArgs. Any order ends
 * in the same state, since `wg` moves an allowed IP to the peer that was given it last; remove →
 * update → add keeps the interface smallest on the way.
 */
export type ReconcilePlan = {
  add: DesiredPeer[];
  remove: string[];
  update: DesiredPeer[];
};

/**
 * Linux IFNAMSIZ - 1 characters of what wg-quick allows, not starting with "-" (an option to
 * `wg`), and not "all" / "interfaces", which `wg show` reads as subcommands.
 */
const INTERFACE_NAME = /^[A-Za-z0-9_=+.][A-Za-z0-9_=+.-]{0,14}$/;
const WG_SHOW_WORDS = new Set(['all', 'interfaces']);

export function wgSetPeerArgs(iface: string, peer: DesiredPeer): string[] {
  return wgSetPeersArgs(iface, [peer]);
}

export function wgRemovePeerArgs(iface: string, publicKey: string): string[] {
  return wgSetPeersArgs(iface, [{ publicKey, remove: true }]);
}

/**
 * `presharedKeyFile`: a file holding the peer's preshared key (`wg` reads keys only from files; the
 * caller writes it with mode 0600 and removes it after), or '/dev/null' to take one away.
 */
export type PeerChange = {
  publicKey: string;
  allowedIps?: readonly string[];
  presharedKeyFile?: string;
  remove?: boolean;
};
const KEY_FILE = /^\/[A-Za-z0-9_./-]+$/;

/**
 * One `wg set` for many peers (`peer K allowed-ips …` / `peer K remove` sections), checked like
 * the single-peer builders: thousands of peers cost a handful of processes instead of thousands.
 */
export function wgSetPeersArgs(iface: string, changes: readonly PeerChange[]): string[] {
  const args = ['set', interfaceName(iface)];
  for (const change of changes) {
    if (change.remove) args.push('peer', peerKey(change.publicKey), 'remove');
    else {
      args.push('peer', peerKey(change.publicKey));
      if (change.presharedKeyFile !== undefined) args.push('preshared-key', keyFile(change.presharedKeyFile));
      args.push('allowed-ips', allowedIpsArgument(change.allowedIps ?? []));
    }
  }
  return args;
}

export function wgShowDumpArgs(iface: string): string[] {
  return ['show', interfaceName(iface), 'dump'];
}

/** `wg show <iface> latest-handshakes`: a key and unix seconds per peer (0: never), nothing else. */
export function wgShowLatestHandshakesArgs(iface: string): string[] {
  return ['show', interfaceName(iface), 'latest-handshakes'];
}

/**
 * The changes that turn `actual` (from `wg show <iface> dump`) into `desired`. Allowed IPs are
 * compared as sets in the form `wg` prints them, so '10.64.0.2' and '10.64.0.2/32', or two
 * spellings of one IPv6 address, are no change; a preshared key by its digest (a peer with the
 * wrong one, or one it should not have, is updated). O(n) in the number of peers.
 */
export function planReconcile(
  desired: readonly DesiredPeer[],
  actual: readonly (Pick<WgDumpPeer, 'publicKey' | 'allowedIps'> & Partial<Pick<WgDumpPeer, 'presharedKeyDigest'>>)[],
): ReconcilePlan {
  const actualAllowedIps = new Map<string, readonly string[]>();
  const actualPsk = new Map<string, string | null>();
  for (const peer of actual) {
    actualAllowedIps.set(peer.publicKey, peer.allowedIps);
    actualPsk.set(peer.publicKey, peer.presharedKeyDigest ?? null);
  }
  const desiredKeys = new Set<string>();
  const plan: ReconcilePlan = { add: [], remove: [], update: [] };
  for (const [index, peer] of desired.entries()) {
    peerKey(peer.publicKey);
    if (desiredKeys.has(peer.publicKey)) {
      throw new Error(`desired peer set has the same public key twice (entry ${index})`);
    }
    desiredKeys.add(peer.publicKey);
    const current = actualAllowedIps.get(peer.publicKey);
    if (current === undefined) plan.add.push(peer);
    else if (
      !sameAllowedIps(peer.allowedIps, current) ||
      presharedKeyDigest(peer.presharedKey) !== actualPsk.get(peer.publicKey)
    )
      plan.update.push(peer);
  }
  for (const publicKey of actualAllowedIps.keys()) {
    if (!desiredKeys.has(publicKey)) plan.remove.push(publicKey);
  }
  return plan;
}

/** Equal as written settles most peers cheaply; otherwise compare the forms `wg` prints. */
function sameAllowedIps(desired: readonly string[], actual: readonly string[]): boolean {
  if (desired.length === actual.length && [...desired].sort().join(',') === [...actual].sort().join(',')) return true;
  return canonicalSetKey(desired) === canonicalSetKey(actual);
}

function canonicalSetKey(allowedIps: readonly string[]): string {
  const canonical = new Set<string>();
  for (const entry of allowedIps) {
    const cidr = canonicalCidr(entry);
    if (cidr === null) throw new Error(`allowed IP ${JSON.stringify(entry)} is not an address/prefix`);
    canonical.add(cidr);
  }
  return [...canonical].sort().join(',');
}

function allowedIpsArgument(allowedIps: readonly string[]): string {
  for (const entry of allowedIps) {
    if (canonicalCidr(entry) === null) throw new Error(`allowed IP ${JSON.stringify(entry)} is not an address/prefix`);
  }
  return allowedIps.map((entry) => entry.trim()).join(',');
}

function interfaceName(iface: string): string {
  if (!INTERFACE_NAME.test(iface) || WG_SHOW_WORDS.has(iface))
    throw new Error(`not a WireGuard interface name: ${JSON.stringify(iface)}`);
  return iface;
}

function keyFile(file: string): string {
  if (!KEY_FILE.test(file) || file.split('/').includes('..'))
    throw new Error('preshared key file must be an absolute path of plain characters');
  return file;
}

/** Never echoes the key: logs redact keys. */
function peerKey(publicKey: string): string {
  if (!isWireGuardKey(publicKey)) throw new Error('peer public key is not a WireGuard key');
  return publicKey;
}
