import { describe, expect, it } from 'vitest';
import { nodeSubnets } from '@qw/wireguard';
import { nextAddress } from '../src/addresses/address-rules.ts';

const subnets = nodeSubnets(0);
const node = { ipv4_cidr: subnets.ipv4Cidr, ipv6_cidr: subnets.ipv6Cidr };

describe('nextAddress', () => {
  it('gives the lowest free host, with its IPv6 twin in the node subnet', () => {
    const first = nextAddress(node, []);
    expect(first).not.toBeNull();
    const second = nextAddress(node, [first!.ipv4]);
    expect(second!.ipv4).not.toBe(first!.ipv4);
    expect(second!.ipv6).not.toBe(first!.ipv6);
    // A freed address is given again before any higher one.
    expect(nextAddress(node, [second!.ipv4])).toEqual(first);
  });

  it('answers null when every host is taken', () => {
    const small = { ipv4_cidr: '10.77.0.0/29', ipv6_cidr: node.ipv6_cidr };
    const taken: string[] = [];
    for (let address = nextAddress(small, taken); address && taken.length < 10; address = nextAddress(small, taken))
      taken.push(address.ipv4);
    expect(taken.length).toBeGreaterThan(0);
    expect(taken.length).toBeLessThan(10);
    expect(nextAddress(small, taken)).toBeNull();
  });
});
