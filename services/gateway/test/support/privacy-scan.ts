import { BlockList, isIPv4, isIPv6 } from 'node:net';
import type { SensitiveKind } from '@qw/contracts';

/**
 * Finds personal data and secrets in any text, independently of the logger's own masking (which
 * is what is being checked): e-mail addresses, IP addresses (told apart as a client's, a masked
 * client network, a tunnel address, a node's or loopback), WireGuard private keys, bearer tokens
 * and JWTs, and the exact secrets a test flow handled (refresh tokens, link tokens, passwords,
 * private keys), which no pattern could tell from a public key or a hash.
 */
export type ScanContext = {
  /** Addresses the service assigns inside tunnels (every node's subnets). */
  tunnelRanges: string[];
  /** The addresses nodes registered (their endpoints). */
  nodeAddresses: Set<string>;
  /** Exact secrets of the flow, with their kind. */
  secrets: Map<string, SensitiveKind>;
};

export type Detected = { kind: SensitiveKind | 'loopback' | 'node_address'; sample: string };

const email = /[\w.!#$%&'*+/=?^`{|}~-]+@[a-z0-9-]+(?:\.[a-z0-9-]+)+/gi;
const ipv4 = /(?<![\w.])((?:\d{1,3}\.){3}\d{1,3})(\/\d{1,2})?(?![\w.])/g;
const ipv6 = /(?<![\w:.])([0-9a-f]{0,4}(?::[0-9a-f]{0,4}){2,7})(\/\d{1,3})?(?![\w:])/gi;
const jwt = /\beyJ[\w-]{5,}\.[\w-]{5,}\.[\w-]*/g;
const bearer = /\bbearer\s+(?!\[)[\w.~+/=-]{8,}/gi;
const wgPrivateKey = /PrivateKey\s*=\s*[A-Za-z0-9+/]{42}[AEIMQUYcgkosw048]=/g;

function blockListOf(ranges: string[]): BlockList {
  const list = new BlockList();
  for (const range of ranges) {
    const [address, prefix] = range.split('/');
    list.addSubnet(address!, Number(prefix), isIPv6(address!) ? 'ipv6' : 'ipv4');
  }
  return list;
}

export function scanner(context: ScanContext): (text: string) => Detected[] {
  const tunnels = blockListOf(context.tunnelRanges);
  const loopback = blockListOf(['127.0.0.0/8', '::1/128']);
  const classify = (address: string, prefix: string | undefined): Detected['kind'] => {
    const family = isIPv6(address) ? 'ipv6' : 'ipv4';
    if (loopback.check(address, family)) return 'loopback';
    if (context.nodeAddresses.has(address)) return 'node_address';
    if (tunnels.check(address, family)) return 'tunnel_address';
    // A client endpoint cut to its /24 or /48 before it leaves the node.
    if (prefix && (prefix === '/24' || prefix === '/48')) return 'masked_client_network';
    return 'client_ip';
  };
  return (text) => {
    const found: Detected[] = [];
    for (const match of text.matchAll(email)) found.push({ kind: 'email', sample: match[0] });
    for (const match of text.matchAll(ipv4)) {
      if (!isIPv4(match[1]!)) continue;
      found.push({ kind: classify(match[1]!, match[2]), sample: match[0] });
    }
    for (const match of text.matchAll(ipv6)) {
      if (!isIPv6(match[1]!) || (!match[1]!.includes('::') && match[1]!.split(':').length < 8)) continue;
      found.push({ kind: classify(match[1]!, match[2]), sample: match[0] });
    }
    for (const match of text.matchAll(jwt)) found.push({ kind: 'token', sample: match[0] });
    for (const match of text.matchAll(bearer)) found.push({ kind: 'token', sample: match[0] });
    for (const match of text.matchAll(wgPrivateKey)) found.push({ kind: 'private_key', sample: match[0] });
    for (const [secret, kind] of context.secrets) if (text.includes(secret)) found.push({ kind, sample: secret });
    return found;
  };
}

/** Every string inside a value, with its path (array indices as []): a log line, a row's JSON column, an event. */
export function stringsOf(value: unknown, path = ''): Array<{ path: string; text: string }> {
  if (value === null || value === undefined) return [];
  if (typeof value === 'string') return [{ path, text: value }];
  if (typeof value === 'number' || typeof value === 'boolean' || typeof value === 'bigint')
    return [{ path, text: String(value) }];
  if (value instanceof Date) return [];
  if (Buffer.isBuffer(value)) return [{ path, text: value.toString('latin1') }];
  if (Array.isArray(value)) return value.flatMap((item) => stringsOf(item, `${path}[]`));
  if (typeof value === 'object')
    return Object.entries(value).flatMap(([key, item]) => stringsOf(item, path ? `${path}.${key}` : key));
  return [];
}
