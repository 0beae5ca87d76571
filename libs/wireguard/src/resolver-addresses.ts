/**
 * Where a device sends DNS: the resolver on its own node, inside the tunnel. With no blocking it
 * is the node's own tunnel addresses (10.(64+n).0.1 and <ula>:<n>::1); a blocking mask m of 1–31
 * (libs/contracts `blocking.ts`) names the policy addresses 100.64.0.m and <ula>:ffff::m, which
 * every node holds on its interface and its resolver answers with that policy (Mullvad's scheme).
 * They lie outside every node's subnets (node indexes are 0–63, the /64 index ffff is not one),
 * so no device is ever given one.
 */
import { formatIpv6, networkOf, parseCidr } from './ip-address.ts';
import { DEFAULT_ULA_PREFIX } from './addresses.ts';

export const POLICY_RESOLVER_IPV4_NETWORK = '100.64.0.0/24';
const POLICY_IPV6_SUBNET_INDEX = 0xffffn;
const MAX_MASK = 31;
const TUNNEL_CHECK_HOST = 0xfe;

export type ResolverAddresses = { ipv4: string; ipv6: string };

export function policyResolverAddresses(mask: number, ulaPrefix: string = DEFAULT_ULA_PREFIX): ResolverAddresses {
  if (!Number.isInteger(mask) || mask < 1 || mask > MAX_MASK) {
    throw new RangeError(`policy resolver mask must be an integer from 1 to ${MAX_MASK}, got ${mask}`);
  }
  return everyNodeAddresses(mask, ulaPrefix);
}

/** Host `host` of the addresses every node holds alike: 100.64.0.<host> and <ula>:ffff::<host>. */
function everyNodeAddresses(host: number, ulaPrefix: string): ResolverAddresses {
  const ula = parseCidr(ulaPrefix);
  if (ula === null || ula.family !== 6 || ula.prefixLength !== 48) {
    throw new Error(`ULA prefix must be a /48, got ${JSON.stringify(ulaPrefix)}`);
  }
  return {
    ipv4: `100.64.0.${host}`,
    ipv6: formatIpv6(networkOf(ula) | (POLICY_IPV6_SUBNET_INDEX << 64n) | BigInt(host)),
  };
}

/** Every policy address a node holds, mask 1 to 31. */
export function allPolicyResolverAddresses(
  ulaPrefix: string = DEFAULT_ULA_PREFIX,
): Array<ResolverAddresses & { mask: number }> {
  return Array.from({ length: MAX_MASK }, (_, index) => ({
    mask: index + 1,
    ...policyResolverAddresses(index + 1, ulaPrefix),
  }));
}

/** The DNS line of a device's config: its node's resolver with the device's blocking mask. */
export function resolverAddresses(
  node: { nodeIpv4: string; nodeIpv6: string },
  mask: number,
  ulaPrefix: string = DEFAULT_ULA_PREFIX,
): ResolverAddresses {
  if (mask === 0) return { ipv4: node.nodeIpv4, ipv6: node.nodeIpv6 };
  return policyResolverAddresses(mask, ulaPrefix);
}

/**
 * The "Am I protected?" check's addresses (issue #25): 100.64.0.254 and <ula>:ffff::fe, held by
 * every node like the policy addresses, and outside their masks 1–31, so no resolver and no device
 * ever has them.
 */
export function tunnelCheckAddresses(ulaPrefix: string = DEFAULT_ULA_PREFIX): ResolverAddresses {
  return everyNodeAddresses(TUNNEL_CHECK_HOST, ulaPrefix);
}
