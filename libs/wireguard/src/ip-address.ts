/**
 * IPv4/IPv6 text ↔ number conversions. IPv6 is printed in the RFC 5952 canonical form, which is
 * also what `wg show` prints (inet_ntop), so strings from us and from `wg` compare equal.
 */

const IPV4_OCTET = /^(0|[1-9]\d{0,2})$/;
const IPV6_HEXTET = /^[0-9a-fA-F]{1,4}$/;
const PREFIX_LENGTH = /^(0|[1-9]\d{0,2})$/;

export type IpFamily = 4 | 6;

/** A parsed CIDR; `address` is the address as written (host bits kept). */
export type Cidr = { family: IpFamily; address: bigint; prefixLength: number };

/** Dotted quad → unsigned 32-bit integer, or null. No leading zeros (they mean octal to some tools). */
export function parseIpv4(text: string): number | null {
  const parts = text.split('.');
  if (parts.length !== 4) return null;
  let value = 0;
  for (const part of parts) {
    if (!IPV4_OCTET.test(part)) return null;
    const octet = Number(part);
    if (octet > 255) return null;
    value = value * 256 + octet;
  }
  return value;
}

export function ipv4ToInt(text: string): number {
  const value = parseIpv4(text);
  if (value === null) throw new Error(`not an IPv4 address: ${JSON.stringify(text)}`);
  return value;
}

export function intToIpv4(value: number): string {
  if (!Number.isInteger(value) || value < 0 || value > 0xffff_ffff) {
    throw new RangeError(`not a 32-bit unsigned integer: ${value}`);
  }
  return [value >>> 24, (value >>> 16) & 0xff, (value >>> 8) & 0xff, value & 0xff].join('.');
}

/** IPv6 text (with optional embedded IPv4 tail, no zone id) → 128-bit integer, or null. */
export function parseIpv6(text: string): bigint | null {
  const groups = parseIpv6Groups(text);
  return groups === null ? null : groups.reduce((value, group) => (value << 16n) | BigInt(group), 0n);
}

/** 128-bit integer → RFC 5952 text: lowercase, no leading zeros, longest zero run (≥2) as "::". */
export function formatIpv6(value: bigint): string {
  if (value < 0n || value >> 128n !== 0n) throw new RangeError('not a 128-bit unsigned integer');
  const groups: number[] = [];
  for (let shift = 112n; shift >= 0n; shift -= 16n) groups.push(Number((value >> shift) & 0xffffn));
  return formatIpv6Groups(groups);
}

/* The work is done on eight 16-bit groups: plain numbers keep the 10,000-peer reconcile fast. */

function parseIpv6Groups(text: string): number[] | null {
  let body = text;
  const lastColon = body.lastIndexOf(':');
  if (lastColon >= 0 && body.includes('.', lastColon)) {
    // An embedded IPv4 tail ("::ffff:192.0.2.1") is the last two groups written another way.
    const ipv4 = parseIpv4(body.slice(lastColon + 1));
    if (ipv4 === null) return null;
    body = `${body.slice(0, lastColon + 1)}${(ipv4 >>> 16).toString(16)}:${(ipv4 & 0xffff).toString(16)}`;
  }
  const halves = body.split('::');
  if (halves.length > 2) return null;
  const head = readGroups(halves[0]);
  const rest = readGroups(halves[1]);
  if (head === null || rest === null) return null;
  const explicit = head.length + rest.length;
  if (halves.length === 1) return explicit === 8 ? head : null;
  if (explicit > 7) return null;
  return [...head, ...new Array<number>(8 - explicit).fill(0), ...rest];
}

function readGroups(half: string | undefined): number[] | null {
  if (half === undefined || half === '') return [];
  const groups: number[] = [];
  for (const group of half.split(':')) {
    if (!IPV6_HEXTET.test(group)) return null;
    groups.push(parseInt(group, 16));
  }
  return groups;
}

function formatIpv6Groups(groups: readonly number[]): string {
  if (groups.slice(0, 6).join(':') === '0:0:0:0:0:65535') {
    return `::ffff:${intToIpv4((groups[6] ?? 0) * 0x10000 + (groups[7] ?? 0))}`;
  }
  let bestStart = -1;
  let bestLength = 0;
  for (let start = 0; start < 8; ) {
    if (groups[start] !== 0) {
      start += 1;
      continue;
    }
    let end = start;
    while (end < 8 && groups[end] === 0) end += 1;
    if (end - start > bestLength) [bestStart, bestLength] = [start, end - start];
    start = end;
  }
  const hex = groups.map((group) => group.toString(16));
  if (bestLength < 2) return hex.join(':');
  return `${hex.slice(0, bestStart).join(':')}::${hex.slice(bestStart + bestLength).join(':')}`;
}

/** "10.64.0.2/32", "fd7a::2/128"; a bare address is a host route (/32, /128), as `wg` reads it. */
export function parseCidr(text: string): Cidr | null {
  const { addressText, prefixLength } = splitCidr(text);
  if (prefixLength === null) return null;
  const ipv4 = parseIpv4(addressText);
  if (ipv4 !== null) {
    const length = prefixLength === 'none' ? 32 : prefixLength;
    return length <= 32 ? { family: 4, address: BigInt(ipv4), prefixLength: length } : null;
  }
  const ipv6 = parseIpv6(addressText);
  if (ipv6 !== null) {
    const length = prefixLength === 'none' ? 128 : prefixLength;
    return length <= 128 ? { family: 6, address: ipv6, prefixLength: length } : null;
  }
  return null;
}

/** The network part of an address: host bits cleared. */
export function networkOf(cidr: Cidr): bigint {
  const width = cidr.family === 4 ? 32n : 128n;
  const hostBits = width - BigInt(cidr.prefixLength);
  return (cidr.address >> hostBits) << hostBits;
}

/**
 * The form `wg show` prints for an allowed IP: canonical address, host bits cleared, explicit
 * prefix length. Null when the text is not a CIDR.
 */
export function canonicalCidr(text: string): string | null {
  const { addressText, prefixLength } = splitCidr(text.trim());
  if (prefixLength === null) return null;
  const ipv4 = parseIpv4(addressText);
  if (ipv4 !== null) {
    const length = prefixLength === 'none' ? 32 : prefixLength;
    if (length > 32) return null;
    const network = ipv4 - (ipv4 % 2 ** (32 - length));
    return `${intToIpv4(network)}/${length}`;
  }
  const groups = parseIpv6Groups(addressText);
  if (groups === null) return null;
  const length = prefixLength === 'none' ? 128 : prefixLength;
  if (length > 128) return null;
  const network = groups.map((group, index) => {
    const keep = Math.min(16, Math.max(0, length - index * 16));
    return keep === 16 ? group : group & (0xffff << (16 - keep)) & 0xffff;
  });
  return `${formatIpv6Groups(network)}/${length}`;
}

function splitCidr(text: string): { addressText: string; prefixLength: number | 'none' | null } {
  const slash = text.indexOf('/');
  if (slash < 0) return { addressText: text, prefixLength: 'none' };
  const lengthText = text.slice(slash + 1);
  return {
    addressText: text.slice(0, slash),
    prefixLength: PREFIX_LENGTH.test(lengthText) ? Number(lengthText) : null,
  };
}

/**
 * One address as one string, whichever way it was written: IPv4 as a dotted quad (also when it
 * arrives IPv4-mapped, `::ffff:192.0.2.1`, as a dual-stack socket reports it), IPv6 in RFC 5952
 * form. Null when the text is not an address (a host name, a CIDR, a zone id).
 */
export function canonicalAddress(text: string): string | null {
  const trimmed = text.trim();
  const ipv4 = parseIpv4(trimmed);
  if (ipv4 !== null) return intToIpv4(ipv4);
  const ipv6 = parseIpv6(trimmed);
  if (ipv6 === null) return null;
  if (ipv6 >> 32n === 0xffffn) return intToIpv4(Number(ipv6 & 0xffff_ffffn));
  return formatIpv6(ipv6);
}
