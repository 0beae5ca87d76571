/**
 * Split tunnelling per device (Tunnel privacy): which destinations a device's config sends into
 * the tunnel, as its `AllowedIPs` line. `all` is everything; `except_local` is the exact
 * complement of local networks (RFC 1918, link-local, multicast, IPv6 alike) with the device's
 * own tunnel subnet and resolver put back; `custom` is the person's routes plus the resolver, so
 * DNS still goes through the tunnel. Ranges are worked out as bigint intervals and written back as
 * the fewest CIDRs that cover exactly them.
 */
import { type Cidr, type IpFamily, canonicalCidr, formatIpv6, intToIpv4, networkOf, parseCidr } from './ip-address.ts';
import type { ResolverAddresses } from './resolver-addresses.ts';

/** The presets of libs/contracts `split-tunnel.ts`. */
export type SplitTunnelPreset = 'all' | 'except_local' | 'custom';

/**
 * What "local networks" are: never sent into the tunnel by `except_local`. RFC 1918 and
 * link-local as the issue asks; multicast too, since discovery (mDNS, SSDP: printers, casting)
 * only works on the local network, and IPv4's reserved 240/4 with the limited broadcast in it
 * (no public address is there, and excluding the broadcast alone would cost 28 more lines).
 * Loopback is not listed: the system answers it itself ahead of any route.
 */
export const localIpv4Networks: readonly string[] = [
  '10.0.0.0/8',
  '172.16.0.0/12',
  '192.168.0.0/16',
  '169.254.0.0/16',
  '224.0.0.0/4',
  '240.0.0.0/4',
];
/** Unique local (fc00::/7, where our tunnel's own ULA lies too), link-local and multicast. */
export const localIpv6Networks: readonly string[] = ['fc00::/7', 'fe80::/10', 'ff00::/8'];

export const ALL_TRAFFIC: readonly string[] = ['0.0.0.0/0', '::/0'];

/** What must stay inside the tunnel whatever the preset: the device's node subnets and its resolver. */
export type TunnelKeep = {
  /** The device's node's subnets, e.g. 10.67.0.0/16 and fd7a:5157:7769:3::/64. */
  nodeIpv4Cidr: string;
  nodeIpv6Cidr: string;
  resolver: ResolverAddresses;
};

export type SplitTunnel = { preset: SplitTunnelPreset; routes: readonly string[] };

/** An inclusive interval of addresses of one family. */
export type AddressRange = { start: bigint; end: bigint };

const widthOf = (family: IpFamily) => (family === 4 ? 32 : 128);

/** The addresses one CIDR covers. */
export function rangeOf(cidr: Cidr): AddressRange {
  const start = networkOf(cidr);
  return { start, end: start + (1n << BigInt(widthOf(cidr.family) - cidr.prefixLength)) - 1n };
}

/** Sorted, merged (overlapping or touching intervals become one). */
export function mergeRanges(ranges: readonly AddressRange[]): AddressRange[] {
  const sorted = [...ranges].sort((a, b) => (a.start < b.start ? -1 : a.start > b.start ? 1 : 0));
  const merged: AddressRange[] = [];
  for (const range of sorted) {
    const last = merged.at(-1);
    if (last && range.start <= last.end + 1n) {
      if (range.end > last.end) last.end = range.end;
    } else merged.push({ ...range });
  }
  return merged;
}

/** `from` without any address of `minus`; both merged and sorted. */
export function subtractRanges(from: readonly AddressRange[], minus: readonly AddressRange[]): AddressRange[] {
  const out: AddressRange[] = [];
  for (const range of mergeRanges(from)) {
    let start = range.start;
    for (const cut of mergeRanges(minus)) {
      if (cut.end < start || cut.start > range.end) continue;
      if (cut.start > start) out.push({ start, end: cut.start - 1n });
      start = cut.end + 1n;
      if (start > range.end) break;
    }
    if (start <= range.end) out.push({ start, end: range.end });
  }
  return out;
}

/**
 * The fewest CIDRs whose union is exactly `ranges`: each maximal interval is cut greedily into the
 * largest aligned blocks, which is the unique coarsest cover (any other has two sibling blocks
 * that would merge into their parent).
 */
export function cidrsOfRanges(ranges: readonly AddressRange[], family: IpFamily): string[] {
  const width = widthOf(family);
  const cidrs: string[] = [];
  for (const { start: first, end } of mergeRanges(ranges)) {
    let start = first;
    while (start <= end) {
      let hostBits = 0;
      while (
        hostBits < width &&
        (start & ((1n << BigInt(hostBits + 1)) - 1n)) === 0n &&
        start + (1n << BigInt(hostBits + 1)) - 1n <= end
      ) {
        hostBits += 1;
      }
      const address = family === 4 ? intToIpv4(Number(start)) : formatIpv6(start);
      cidrs.push(`${address}/${width - hostBits}`);
      start += 1n << BigInt(hostBits);
    }
  }
  return cidrs;
}

function rangesOf(cidrs: readonly string[], family: IpFamily): AddressRange[] {
  const ranges: AddressRange[] = [];
  for (const text of cidrs) {
    const cidr = parseCidr(text);
    if (cidr === null) throw new Error(`not a CIDR: ${JSON.stringify(text)}`);
    if (cidr.family === family) ranges.push(rangeOf(cidr));
  }
  return ranges;
}

function keptCidrs(keep: TunnelKeep): string[] {
  return [keep.nodeIpv4Cidr, keep.nodeIpv6Cidr, `${keep.resolver.ipv4}/32`, `${keep.resolver.ipv6}/128`];
}

/**
 * Everything but local networks, with what must stay in the tunnel (`keep`) put back: the node's
 * subnet (10.(64+n).0.0/16 lies inside 10/8, its /64 inside fc00::/7) and its resolver address.
 */
export function exceptLocalAllowedIps(keep: TunnelKeep): string[] {
  const kept = keptCidrs(keep);
  return ([4, 6] as const).flatMap((family) => {
    const everything = [{ start: 0n, end: (1n << BigInt(widthOf(family))) - 1n }];
    const local = rangesOf(family === 4 ? localIpv4Networks : localIpv6Networks, family);
    const outside = subtractRanges(everything, local);
    return cidrsOfRanges([...outside, ...rangesOf(kept, family)], family);
  });
}

/** The `AllowedIPs` of a device's config for its split-tunnel choice. */
export function allowedIpsFor(split: SplitTunnel, keep: TunnelKeep): string[] {
  if (split.preset === 'all') return [...ALL_TRAFFIC];
  if (split.preset === 'except_local') return exceptLocalAllowedIps(keep);
  // Custom: the person's routes as they gave them, then the resolver unless a route holds it already.
  const routes = [...split.routes];
  for (const resolver of [`${keep.resolver.ipv4}/32`, `${keep.resolver.ipv6}/128`]) {
    const cidr = parseCidr(resolver)!;
    const covered = routes.some((route) => {
      const parsed = parseCidr(route);
      if (parsed === null || parsed.family !== cidr.family) return false;
      const range = rangeOf(parsed);
      return cidr.address >= range.start && cidr.address <= range.end;
    });
    if (!covered) routes.push(resolver);
  }
  return routes;
}

export type CustomRoutesCheck = { routes: string[] } | { problem: string; entry: string | null };

/**
 * A person's custom routes, as typed (one per line, or separated by commas or spaces): each an
 * IPv4 or IPv6 address with an optional prefix length, written back in canonical form (host
 * bits cleared, "192.168.1.7/24" → "192.168.1.0/24"), duplicates dropped, at most `max`
 * (contracts' `maxCustomRoutes`). The first problem found is told, with the entry it concerns.
 */
export function checkCustomRoutes(entries: readonly string[], max: number): CustomRoutesCheck {
  const routes: string[] = [];
  for (const raw of entries.flatMap((entry) => entry.split(/[\s,]+/)).filter((entry) => entry !== '')) {
    const canonical = raw.length <= 64 ? canonicalCidr(raw) : null;
    if (canonical === null) {
      return {
        problem: `"${raw.slice(0, 64)}" is not an IP address or network. Write one per line, such as 192.168.1.0/24 or 2001:db8::/32.`,
        entry: raw.slice(0, 64),
      };
    }
    if (!routes.includes(canonical)) routes.push(canonical);
  }
  if (routes.length === 0)
    return { problem: 'Add at least one route, such as 192.168.1.0/24, or choose another option.', entry: null };
  if (routes.length > max)
    return { problem: `At most ${max} routes per device. Combine some into larger networks.`, entry: null };
  return { routes };
}
