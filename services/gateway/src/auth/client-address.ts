import type { FastifyRequest } from 'fastify';
import { formatIpv6, parseIpv6 } from '@qw/wireguard';

const mappedIpv4 = /^::ffff:(\d{1,3}(?:\.\d{1,3}){3})$/i;

/**
 * The client's address as fastify derived it (under TRUST_PROXY), or undefined when the client
 * has already gone: without a proxy header, `request.ip` is the socket's remote address, which
 * Node no longer knows once the socket is closed (a page that navigated away mid-request).
 * Fastify's type says string; this says what it is.
 */
export function clientAddress(request: FastifyRequest): string | undefined {
  return request.ip as string | undefined;
}

/**
 * What rate limits count for a client address: an IPv4 address as it is (also when it arrives
 * IPv4-mapped), an IPv6 address by its /64 network. One subscriber line gets a whole /64, so a
 * limit per IPv6 address would let anyone walk around it through 2^64 addresses.
 */
export function ipv6NetworkKey(address: string | undefined): string {
  // A client that has gone reads no answer; its requests count together, under no address.
  if (address === undefined) return 'gone';
  const mapped = mappedIpv4.exec(address);
  if (mapped) return mapped[1]!;
  const value = parseIpv6(address);
  if (value === null) return address;
  const network = (value >> 64n) << 64n;
  return `${formatIpv6(network)}/64`;
}
