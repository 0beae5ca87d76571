import { describe, expect, it } from 'vitest';
import { ipv6NetworkKey } from '../src/auth/client-address.ts';
import { trustProxyOption } from '../src/config.ts';

describe('what a rate limit counts for a client address', () => {
  it('counts an IPv6 client by its /64: walking the block does not escape a limit', () => {
    const one = ipv6NetworkKey('2001:db8:1234:5678::1');
    expect(ipv6NetworkKey('2001:db8:1234:5678:ffff:ffff:ffff:fffe')).toBe(one);
    expect(ipv6NetworkKey('2001:0db8:1234:5678:0000:0000:0000:0042')).toBe(one);
    expect(one).toBe('2001:db8:1234:5678::/64');
    expect(ipv6NetworkKey('2001:db8:1234:5679::1')).not.toBe(one);
  });

  it('counts IPv4 as it is, also when it arrives IPv4-mapped', () => {
    expect(ipv6NetworkKey('203.0.113.7')).toBe('203.0.113.7');
    expect(ipv6NetworkKey('::ffff:203.0.113.7')).toBe('203.0.113.7');
    expect(ipv6NetworkKey('203.0.113.8')).not.toBe(ipv6NetworkKey('203.0.113.7'));
  });
});

describe('TRUST_PROXY', () => {
  it('trusts nobody by default, everybody, a number of hops, or listed proxies', () => {
    expect(trustProxyOption('false')).toBe(false);
    expect(trustProxyOption('true')).toBe(true);
    const hops = trustProxyOption('2') as (address: string, hop: number) => boolean;
    expect([hops('x', 0), hops('x', 1), hops('x', 2)]).toEqual([true, true, false]);
    expect(trustProxyOption('10.0.0.0/8,192.0.2.1')).toEqual(['10.0.0.0/8', '192.0.2.1']);
  });
});
