import { blockingCategories, blockingCategoriesOf } from '@qw/contracts';
import {
  allPolicyResolverAddresses,
  formatIpv6,
  parseCidr,
  parseIpv4,
  parseIpv6,
  type ResolverAddresses,
} from '@qw/wireguard';
import type { Blocklists } from './blocklists.ts';
import { blockedDomains } from './blocklists.ts';

/** One address the resolver answers on, with the blocking mask its answers follow (0: none). */
export type ResolverListen = { address: string; mask: number };

export type UnboundSettings = {
  /** Unbound's working directory: its config, the blocklist zones, nothing else. */
  directory: string;
  listen: readonly ResolverListen[];
  port: number;
  /** Forward every query to these (address or address@port); empty: full recursion from the root. */
  upstream: readonly string[];
  /** The user unbound drops to after binding its port; '' keeps the one it started as. */
  username: string;
  /** Debian's dns-root-data trust anchor, when present: DNSSEC validation while recursing. */
  trustAnchorFile: string | null;
  /** The file `blocklistZones` wrote (included by the main config). */
  blocklistFile: string;
};

/** Unbound's tags, one per blocking category, named as the categories. */
const tags = blockingCategories.join(' ');

/**
 * The addresses a node's resolver answers on: its own tunnel addresses without blocking, and the
 * 31 policy addresses of `allPolicyResolverAddresses` (100.64.0.m, <ula>:ffff::m) with mask m.
 * IPv6 ones only when the node has its IPv6 address (a host with IPv6 off has none).
 */
export function resolverListen(
  node: { nodeIpv4: string; nodeIpv6: string | null },
  ulaPrefix: string,
): ResolverListen[] {
  const policy = allPolicyResolverAddresses(ulaPrefix);
  const withV6 = node.nodeIpv6 !== null;
  return [
    { address: node.nodeIpv4, mask: 0 },
    ...(withV6 ? [{ address: node.nodeIpv6!, mask: 0 }] : []),
    ...policy.map((p) => ({ address: p.ipv4, mask: p.mask })),
    ...(withV6 ? policy.map((p) => ({ address: p.ipv6, mask: p.mask })) : []),
  ];
}

/** The ULA /48 a node's IPv6 /64 lies in (its policy addresses are <that /48>:ffff::m). */
export function ulaPrefixOf(ipv6Cidr: string): string {
  const cidr = parseCidr(ipv6Cidr);
  if (cidr === null || cidr.family !== 6 || cidr.prefixLength < 48) {
    throw new Error(`not an IPv6 subnet inside a /48: ${JSON.stringify(ipv6Cidr)}`);
  }
  const mask48 = ((1n << 48n) - 1n) << 80n;
  return `${formatIpv6(cidr.address & mask48)}/48`;
}

/** The address lines the agent gives the interface for the policy addresses (/32 and /128). */
export function policyInterfaceAddresses(addresses: readonly ResolverAddresses[], withIpv6: boolean): string[] {
  return [...addresses.map((a) => `${a.ipv4}/32`), ...(withIpv6 ? addresses.map((a) => `${a.ipv6}/128`) : [])];
}

function isAddress(text: string): boolean {
  return parseIpv4(text) !== null || parseIpv6(text) !== null;
}

/** An upstream as unbound's forward-addr takes it ("192.0.2.1", "2001:db8::1@5353"), or null. */
export function upstreamAddress(text: string): string | null {
  const [address, port, ...rest] = text.trim().split('@');
  if (rest.length > 0 || !address || !isAddress(address)) return null;
  if (port !== undefined && !/^[1-9][0-9]{0,4}$/.test(port)) return null;
  if (port !== undefined && Number(port) > 65535) return null;
  return port === undefined ? address : `${address}@${port}`;
}

function quoted(text: string): string {
  if (/["\n\r]/.test(text)) throw new Error(`unbound config value may not hold quotes or newlines: ${text}`);
  return `"${text}"`;
}

/**
 * unbound.conf for a node (unbound 1.17): it listens on the given tunnel addresses only (never a
 * wildcard, so never the public address), answers whoever reaches them (interface-action allow;
 * no access-control line, since one would override the interface tags), and tags each policy
 * address with its mask's categories so the tagged blocklist zones apply there alone. Nothing is
 * logged but errors: verbosity 0, no query, reply, local-action or servfail lines, no statistics,
 * no remote control, no cache dump. Answers naming private or tunnel addresses for public names
 * are dropped (DNS rebinding towards the node or other devices).
 */
export function unboundConfig(settings: UnboundSettings): string {
  if (settings.listen.length === 0) throw new Error('the resolver needs at least one address to listen on');
  for (const { address, mask } of settings.listen) {
    if (!isAddress(address)) throw new Error(`not an IP address: ${JSON.stringify(address)}`);
    blockingCategoriesOf(mask);
  }
  const upstream = settings.upstream.map((u) => {
    const address = upstreamAddress(u);
    if (address === null) throw new Error(`not an upstream resolver address: ${JSON.stringify(u)}`);
    return address;
  });
  const withIpv6 = settings.listen.some((l) => l.address.includes(':'));
  const validating = upstream.length === 0 && settings.trustAnchorFile !== null;
  const lines = [
    'server:',
    `  directory: ${quoted(settings.directory)}`,
    '  chroot: ""',
    `  username: ${quoted(settings.username)}`,
    '  do-daemonize: no',
    '  pidfile: ""',
    '  use-syslog: no',
    '  logfile: ""',
    '  verbosity: 0',
    '  log-queries: no',
    '  log-replies: no',
    '  log-tag-queryreply: no',
    '  log-local-actions: no',
    '  log-servfail: no',
    '  val-log-level: 0',
    '  statistics-interval: 0',
    '  statistics-cumulative: no',
    '  extended-statistics: no',
    '  hide-identity: yes',
    '  hide-version: yes',
    '  hide-trustanchor: yes',
    '  minimal-responses: yes',
    '  qname-minimisation: yes',
    '  num-threads: 1',
    `  port: ${settings.port}`,
    '  interface-automatic: no',
    '  ip-freebind: yes',
    '  so-reuseport: no',
    '  do-ip4: yes',
    `  do-ip6: ${withIpv6 ? 'yes' : 'no'}`,
    '  do-udp: yes',
    '  do-tcp: yes',
    `  module-config: ${quoted(validating ? 'validator iterator' : 'iterator')}`,
    ...(validating ? [`  trust-anchor-file: ${quoted(settings.trustAnchorFile!)}`] : []),
    ...(upstream.some((u) => u.startsWith('127.') || u.startsWith('::1')) ? ['  do-not-query-localhost: no'] : []),
    ...[
      '10.0.0.0/8',
      '172.16.0.0/12',
      '192.168.0.0/16',
      '100.64.0.0/10',
      '169.254.0.0/16',
      'fc00::/7',
      'fe80::/10',
    ].map((net) => `  private-address: ${net}`),
    `  define-tag: ${quoted(tags)}`,
    ...settings.listen.flatMap(({ address, mask }) => [
      `  interface: ${address}`,
      `  interface-action: ${address} allow`,
      ...(mask === 0 ? [] : [`  interface-tag: ${address} ${quoted(blockingCategoriesOf(mask).join(' '))}`]),
    ]),
    `  include: ${quoted(settings.blocklistFile)}`,
    '',
    'remote-control:',
    '  control-enable: no',
    ...(upstream.length > 0
      ? ['', 'forward-zone:', '  name: "."', ...upstream.map((u) => `  forward-addr: ${u}`)]
      : []),
    '',
  ];
  return lines.join('\n');
}

/**
 * The blocklists as unbound local zones: each name (and everything under it) answers NXDOMAIN,
 * but only to addresses tagged with one of the categories that list it (local-zone-tag).
 */
export function blocklistZones(lists: Blocklists): string {
  const lines = ['server:'];
  for (const { domain, categories } of blockedDomains(lists)) {
    lines.push(
      `  local-zone: "${domain}." always_nxdomain`,
      `  local-zone-tag: "${domain}." "${categories.join(' ')}"`,
    );
  }
  lines.push('');
  return lines.join('\n');
}
