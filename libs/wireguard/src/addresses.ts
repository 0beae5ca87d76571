/**
 * Address plan (ARCHITECTURE "Addresses"): node n owns 10.(64+n).0.0/16 out of 10.64.0.0/10 and
 * <ula /48>:<n hex>::/64; the node itself is .1 / ::1; devices get the lowest free host from .2 up,
 * and their IPv6 address carries the same host number, so one IPv4 lease gives both.
 */
import { formatIpv6, intToIpv4, ipv4ToInt, networkOf, parseCidr, parseIpv4, parseIpv6 } from './ip-address.ts';

export const NODE_IPV4_SUPERNET = '10.64.0.0/10';
export const DEFAULT_ULA_PREFIX = 'fd7a:5157:7769::/48';
/** A /10 holds 64 /16s. */
export const MAX_NODES = 64;
/** Host numbers below this are the network address (0) and the node (1). */
export const FIRST_DEVICE_HOST = 2;

const NODE_IPV4_BASE = ipv4ToInt('10.64.0.0');
const NODE_IPV4_PREFIX_LENGTH = 16;

export type NodeSubnets = {
  ipv4Cidr: string;
  ipv6Cidr: string;
  nodeIpv4: string;
  nodeIpv6: string;
};

export function nodeSubnets(nodeIndex: number, ulaPrefix: string = DEFAULT_ULA_PREFIX): NodeSubnets {
  if (!Number.isInteger(nodeIndex) || nodeIndex < 0 || nodeIndex >= MAX_NODES) {
    throw new RangeError(`node index must be an integer from 0 to ${MAX_NODES - 1}, got ${nodeIndex}`);
  }
  const ula = parseCidr(ulaPrefix);
  if (ula === null || ula.family !== 6 || ula.prefixLength !== 48 || ula.address >> 121n !== 0x7en) {
    throw new Error(
      `ULA prefix must be an fc00::/7 /48 such as ${DEFAULT_ULA_PREFIX}, got ${JSON.stringify(ulaPrefix)}`,
    );
  }
  const ipv4Network = NODE_IPV4_BASE + nodeIndex * 2 ** 16;
  const ipv6Network = networkOf(ula) | (BigInt(nodeIndex) << 64n);
  return {
    ipv4Cidr: `${intToIpv4(ipv4Network)}/${NODE_IPV4_PREFIX_LENGTH}`,
    ipv6Cidr: `${formatIpv6(ipv6Network)}/64`,
    nodeIpv4: intToIpv4(ipv4Network + 1),
    nodeIpv6: formatIpv6(ipv6Network + 1n),
  };
}

/**
 * The lowest IPv4 address of `subnetCidr` from host .2 up that is not in `taken`, or null when
 * every host is taken. Never the network or broadcast address. `taken` may hold bare addresses or
 * /32s; addresses outside the subnet are ignored. Linear in the size of `taken`.
 */
export function lowestFreeHost(subnetCidr: string, taken: Iterable<string>): string | null {
  const subnet = parseCidr(subnetCidr);
  if (subnet === null || subnet.family !== 4) throw new Error(`not an IPv4 CIDR: ${JSON.stringify(subnetCidr)}`);
  const network = Number(networkOf(subnet));
  const broadcast = network + 2 ** (32 - subnet.prefixLength) - 1;
  const takenHosts = new Set<number>();
  for (const entry of taken) {
    const address = takenAddress(entry);
    if (address >= network && address <= broadcast) takenHosts.add(address);
  }
  for (let candidate = network + FIRST_DEVICE_HOST; candidate < broadcast; candidate += 1) {
    if (!takenHosts.has(candidate)) return intToIpv4(candidate);
  }
  return null;
}

function takenAddress(entry: string): number {
  const text = entry.endsWith('/32') ? entry.slice(0, -3) : entry;
  const address = parseIpv4(text);
  if (address === null) throw new Error(`taken address is not an IPv4 address or /32: ${JSON.stringify(entry)}`);
  return address;
}

/**
 * The device's IPv6 address in the node's /64: the IPv4 host number (the bits below the node's
 * /16) as the interface identifier, so 10.64.3.7 ↔ <prefix>::307 and the node's .1 ↔ ::1.
 */
export function deviceIpv6For(
  ipv6Cidr: string,
  ipv4Address: string,
  ipv4PrefixLength: number = NODE_IPV4_PREFIX_LENGTH,
): string {
  const subnet = parseCidr(ipv6Cidr);
  if (subnet === null || subnet.family !== 6 || subnet.prefixLength !== 64) {
    throw new Error(`not an IPv6 /64: ${JSON.stringify(ipv6Cidr)}`);
  }
  if (!Number.isInteger(ipv4PrefixLength) || ipv4PrefixLength < 0 || ipv4PrefixLength > 32) {
    throw new RangeError(`IPv4 prefix length out of range: ${ipv4PrefixLength}`);
  }
  const hostBits = 32 - ipv4PrefixLength;
  const hostNumber = BigInt(ipv4ToInt(ipv4Address)) & ((1n << BigInt(hostBits)) - 1n);
  return formatIpv6(networkOf(subnet) | hostNumber);
}

/**
 * The host routes of the address pairs formatted lately: device lists and a node's reconcile pages
 * format the same few pairs again and again, and parsing and formatting an IPv6 address each time
 * was about 2% of a device list's CPU. At most `cidrsKept`; the map starts over when full.
 */
const cidrs = new Map<string, readonly [string, string]>();
const cidrsKept = 100_000;

/** The host routes a device owns: its `Address` in the config and its allowed IPs on the node. */
export function deviceAddressCidrs(ipv4Address: string, ipv6Address: string): [string, string] {
  const key = `${ipv4Address} ${ipv6Address}`;
  let found = cidrs.get(key);
  if (!found) {
    const ipv4 = ipv4ToInt(ipv4Address);
    const ipv6 = parseIpv6(ipv6Address);
    if (ipv6 === null) throw new Error(`not an IPv6 address: ${JSON.stringify(ipv6Address)}`);
    found = [`${intToIpv4(ipv4)}/32`, `${formatIpv6(ipv6)}/128`];
    if (cidrs.size >= cidrsKept) cidrs.clear();
    cidrs.set(key, found);
  }
  // A new array each time: a caller may change its own.
  return [found[0], found[1]];
}

const IPV4_ENDPOINT = /^(\d{1,3}(?:\.\d{1,3}){3})(?::(\d{1,5}))?$/;
const BRACKETED_IPV6_ENDPOINT = /^\[([^\]]+)\](?::(\d{1,5}))?$/;

/**
 * What the no-logs rule lets us keep of a peer's endpoint: IPv4 → its /24, IPv6 → its /48
 * (an IPv4-mapped IPv6 address counts as IPv4; a zone id is dropped). Accepts `a.b.c.d[:port]`
 * and `[ipv6][:port]`; null for "(none)" or anything else.
 */
export function maskEndpoint(endpoint: string): string | null {
  const text = endpoint.trim();
  const ipv4Match = IPV4_ENDPOINT.exec(text);
  if (ipv4Match) {
    const address = parseIpv4(ipv4Match[1] ?? '');
    return address !== null && isPort(ipv4Match[2]) ? maskedIpv4(address) : null;
  }
  // IPv6 only in brackets, as `wg` prints it: "2001:db8::1:80" alone could be address or address:port.
  const ipv6Match = BRACKETED_IPV6_ENDPOINT.exec(text);
  if (!ipv6Match || !isPort(ipv6Match[2])) return null;
  const address = parseIpv6((ipv6Match[1] ?? '').split('%')[0] ?? '');
  if (address === null) return null;
  if (address >> 32n === 0xffffn) return maskedIpv4(Number(address & 0xffff_ffffn));
  return `${formatIpv6(networkOf({ family: 6, address, prefixLength: 48 }))}/48`;
}

function maskedIpv4(address: number): string {
  return `${intToIpv4((address & 0xffff_ff00) >>> 0)}/24`;
}

function isPort(text: string | undefined): boolean {
  return text === undefined || Number(text) <= 65535;
}
