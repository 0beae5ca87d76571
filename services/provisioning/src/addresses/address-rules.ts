import { deviceIpv6For, lowestFreeHost } from '@qw/wireguard';

/**
 * The address a new peer of the node gets: the lowest free host of the node's IPv4 subnet, and
 * the IPv6 address derived from it in the node's IPv6 subnet; null when the subnet is full.
 */
export function nextAddress(
  node: { ipv4_cidr: string; ipv6_cidr: string },
  takenIpv4: string[],
): { ipv4: string; ipv6: string } | null {
  const ipv4 = lowestFreeHost(node.ipv4_cidr, takenIpv4);
  return ipv4 ? { ipv4, ipv6: deviceIpv6For(node.ipv6_cidr, ipv4) } : null;
}
