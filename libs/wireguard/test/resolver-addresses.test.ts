import { describe, expect, it } from 'vitest';
import {
  allPolicyResolverAddresses,
  nodeSubnets,
  parseCidr,
  policyResolverAddresses,
  resolverAddresses,
} from '../src/index.ts';
import { blockingCategoriesOf, blockingMaskOf } from '@qw/contracts';

describe('resolver addresses', () => {
  it('names the node itself without blocking and a policy address per mask with it', () => {
    const node = nodeSubnets(3);
    expect(resolverAddresses(node, 0)).toEqual({ ipv4: '10.67.0.1', ipv6: 'fd7a:5157:7769:3::1' });
    expect(resolverAddresses(node, 1)).toEqual({ ipv4: '100.64.0.1', ipv6: 'fd7a:5157:7769:ffff::1' });
    expect(resolverAddresses(node, 31)).toEqual({ ipv4: '100.64.0.31', ipv6: 'fd7a:5157:7769:ffff::1f' });
    expect(() => policyResolverAddresses(0)).toThrow(RangeError);
    expect(() => policyResolverAddresses(32)).toThrow(RangeError);
  });

  it('gives 31 distinct policy addresses outside every node subnet', () => {
    const all = allPolicyResolverAddresses();
    expect(all).toHaveLength(31);
    expect(new Set(all.map((entry) => entry.ipv4)).size).toBe(31);
    expect(new Set(all.map((entry) => entry.ipv6)).size).toBe(31);
    for (let index = 0; index < 64; index += 1) {
      const subnets = nodeSubnets(index);
      const ipv6 = parseCidr(subnets.ipv6Cidr);
      for (const { ipv6: address } of all) {
        const parsed = parseCidr(`${address}/128`);
        expect(parsed && ipv6 && parsed.address >> 64n === ipv6.address >> 64n).toBe(false);
      }
    }
  });

  it('round-trips categories through the mask', () => {
    expect(blockingMaskOf(['ads', 'gambling'])).toBe(17);
    expect(blockingCategoriesOf(17)).toEqual(['ads', 'gambling']);
    expect(blockingCategoriesOf(0)).toEqual([]);
    expect(() => blockingCategoriesOf(32)).toThrow(RangeError);
  });
});
