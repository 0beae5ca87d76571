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
  const readGroups = (half: string | undefined): number[] | null => {
    if (half === undefined || half === '') return [];
    const groups: number[] = [];
    for (const group of half.split(':')) {
      if (!IPV6_HEXTET.test(group)) return null;
      groups.push(parseInt(group, 16));
    }
    return groups;
  };
  const head = readGroups(halves[0]);
  const rest = readGroups(halves[1]);
  if (head === null || rest === null) return null;
  const explicit = head.length + rest.length;
  let groups: number[];
  if (halves.length === 2) {
    if (explicit > 7) return null;
    groups = [...head, ...new Array<number>(8 - explicit).fill(0), ...rest];
  } else {
    if (explicit !== 8) return null;
    groups = head;
  }
  return groups.reduce((value, group) => (value << 16n) | BigInt(group), 0n);
}

/** 128-bit integer → RFC 5952 text: lowercase, no leading zeros, longest zero run (≥2) as "::". */
export function formatIpv6(value: bigint): string {
  if (value < 0n || value >> 128n !== 0n) throw new RangeError('not a 128-bit unsigned integer');
  const groups: number[] = [];
  for (let shift = 112n; shift >= 0n; shift -= 16n) groups.push(Number((value >> shift) & 0xffffn));
  if (value >> 32n === 0xffffn) return `::ffff:${intToIpv4(Number(value & 0xffff_ffffn))}`;
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
  const slash = text.indexOf('/');
  const addressText = slash < 0 ? text : text.slice(0, slash);
  const lengthText = slash < 0 ? null : text.slice(slash + 1);
  if (lengthText !== null && !PREFIX_LENGTH.test(lengthText)) return null;
  const ipv4 = parseIpv4(addressText);
  if (ipv4 !== null) {
    const prefixLength = lengthText === null ? 32 : Number(lengthText);
    return prefixLength <= 32 ? { family: 4, address: BigInt(ipv4), prefixLength } : null;
  }
  const ipv6 = parseIpv6(addressText);
  if (ipv6 !== null) {
    const prefixLength = lengthText === null ? 128 : Number(lengthText);
    return prefixLength <= 128 ? { family: 6, address: ipv6, prefixLength } : null;
  }
  return null;
}

/** The network part of an address: host bits cleared. */
export function networkOf(cidr: Cidr): bigint {
  const width = cidr.family === 4 ? 32n : 128n;
  const hostBits = width - BigInt(cidr.prefixLength);
  return (cidr.address >> hostBits) << hostBits;
}

export function formatAddress(family: IpFamily, address: bigint): string {
  return family === 4 ? intToIpv4(Number(address)) : formatIpv6(address);
}

/**
 * The form `wg show` prints for an allowed IP: canonical address, host bits cleared, explicit
 * prefix length. Null when the text is not a CIDR.
 */
export function canonicalCidr(text: string): string | null {
  const cidr = parseCidr(text.trim());
  if (cidr === null) return null;
  return `${formatAddress(cidr.family, networkOf(cidr))}/${cidr.prefixLength}`;
}
