import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import {
  allowedIpsFor,
  checkCustomRoutes,
  cidrsOfRanges,
  exceptLocalAllowedIps,
  nodeSubnets,
  parseClientConfig,
  parseCidr,
  renderClientConfig,
  resolverAddresses,
  type TunnelKeep,
} from '../src/index.ts';

/*
 * The reference: what "local" means, written out independently as (family, first bits, length)
 * triples and tested bit by bit on bigints, never through the library's range code.
 */
const LOCAL_V4: Array<[string, number]> = [
  ['00001010', 8], // 10/8
  ['101011000001', 12], // 172.16/12
  ['1100000010101000', 16], // 192.168/16
  ['1010100111111110', 16], // 169.254/16 link-local
  ['1110', 4], // 224/4 multicast
  ['1111', 4], // 240/4 reserved, with 255.255.255.255
];
const LOCAL_V6: Array<[string, number]> = [
  ['1111110', 7], // fc00::/7
  ['1111111010', 10], // fe80::/10
  ['11111111', 8], // ff00::/8
];

function bitsOf(value: bigint, width: number): string {
  return value.toString(2).padStart(width, '0');
}

/** Whether `address` is inside the CIDR text, by comparing leading bits as strings. */
function inCidrText(address: bigint, family: 4 | 6, cidrText: string): boolean {
  const cidr = parseCidr(cidrText);
  if (!cidr || cidr.family !== family) return false;
  const width = family === 4 ? 32 : 128;
  return bitsOf(address, width).slice(0, cidr.prefixLength) === bitsOf(cidr.address, width).slice(0, cidr.prefixLength);
}

function isLocal(address: bigint, family: 4 | 6): boolean {
  const width = family === 4 ? 32 : 128;
  const bits = bitsOf(address, width);
  return (family === 4 ? LOCAL_V4 : LOCAL_V6).some(
    ([prefix, length]) => bits.slice(0, length) === prefix.slice(0, length),
  );
}

function keptCidrs(keep: TunnelKeep): string[] {
  return [keep.nodeIpv4Cidr, keep.nodeIpv6Cidr, `${keep.resolver.ipv4}/32`, `${keep.resolver.ipv6}/128`];
}

/** What must be routed into the tunnel: every non-local address, and the kept ones. */
function shouldRoute(address: bigint, family: 4 | 6, keep: TunnelKeep): boolean {
  return !isLocal(address, family) || keptCidrs(keep).some((cidr) => inCidrText(address, family, cidr));
}

function routes(allowed: readonly string[], address: bigint, family: 4 | 6): boolean {
  return allowed.some((cidr) => inCidrText(address, family, cidr));
}

/** Every address where the answer could change: each CIDR's first and last address, and their neighbours. */
function boundaries(cidrs: readonly string[], family: 4 | 6): bigint[] {
  const width = BigInt(family === 4 ? 32 : 128);
  const top = (1n << width) - 1n;
  const points = new Set<bigint>([0n, top]);
  for (const text of cidrs) {
    const cidr = parseCidr(text);
    if (!cidr || cidr.family !== family) continue;
    const hostBits = width - BigInt(cidr.prefixLength);
    const first = (cidr.address >> hostBits) << hostBits;
    const last = first + (1n << hostBits) - 1n;
    for (const point of [first - 1n, first, first + 1n, last - 1n, last, last + 1n]) {
      if (point >= 0n && point <= top) points.add(point);
    }
  }
  return [...points].sort((a, b) => (a < b ? -1 : 1));
}

const localCidrTexts = {
  4: ['10.0.0.0/8', '172.16.0.0/12', '192.168.0.0/16', '169.254.0.0/16', '224.0.0.0/4', '240.0.0.0/4'],
  6: ['fc00::/7', 'fe80::/10', 'ff00::/8'],
};

function keepFor(nodeIndex: number, mask: number): TunnelKeep {
  const subnets = nodeSubnets(nodeIndex);
  return {
    nodeIpv4Cidr: subnets.ipv4Cidr,
    nodeIpv6Cidr: subnets.ipv6Cidr,
    resolver: resolverAddresses(subnets, mask),
  };
}

function randomAddress(family: 4 | 6): bigint {
  return BigInt(`0x${randomBytes(family === 4 ? 4 : 16).toString('hex')}`);
}

describe('"except local networks" AllowedIPs', () => {
  const cases = [
    { node: 0, mask: 0 },
    { node: 3, mask: 1 },
    { node: 63, mask: 31 },
    { node: 17, mask: 12 },
  ];

  it.each(cases)(
    'routes exactly the public addresses and the tunnel’s own (node $node, mask $mask)',
    ({ node, mask }) => {
      const keep = keepFor(node, mask);
      const allowed = exceptLocalAllowedIps(keep);
      // Parsed back from a rendered config, as a device reads it.
      const config = renderClientConfig({
        deviceName: 'laptop',
        privateKey: 'yAnz5TF+lXXJte14tji3zlMNq+hd2rYUIgJBgB3fBmk=',
        addresses: ['10.64.0.2/32', 'fd7a:5157:7769::2/128'],
        dns: [keep.resolver.ipv4, keep.resolver.ipv6],
        serverPublicKey: 'xTIBA5rboUvnH4htodjb6e697QjLERt1NAB4mZqp8Dg=',
        endpoint: 'vpn.example.com:51820',
        allowedIps: allowed,
      });
      const parsed = parseClientConfig(config).allowedIps;
      expect(parsed).toEqual(allowed);
      for (const family of [4, 6] as const) {
        // Exhaustive over every boundary of the local networks, the kept addresses and the output:
        // between two neighbouring points neither side's answer changes, so this covers the space.
        const points = boundaries([...localCidrTexts[family], ...keptCidrs(keep), ...parsed], family);
        for (const address of points) {
          expect(routes(parsed, address, family), `${family} ${address}`).toBe(shouldRoute(address, family, keep));
        }
        for (let sample = 0; sample < 2000; sample += 1) {
          const address = randomAddress(family);
          expect(routes(parsed, address, family), `${family} ${address}`).toBe(shouldRoute(address, family, keep));
        }
      }
    },
  );

  it('keeps the node subnet, its resolver and the policy resolvers inside, and every local network outside', () => {
    const keep = keepFor(3, 5);
    const allowed = exceptLocalAllowedIps(keep);
    const at = (text: string) => {
      const cidr = parseCidr(text)!;
      return routes(allowed, cidr.address, cidr.family);
    };
    expect(at('10.67.0.1')).toBe(true);
    expect(at('10.67.255.254')).toBe(true);
    expect(at('10.66.0.1')).toBe(false);
    expect(at('100.64.0.5')).toBe(true);
    expect(at('fd7a:5157:7769:3::1')).toBe(true);
    expect(at('fd7a:5157:7769:ffff::5')).toBe(true);
    expect(at('fd7a:5157:7769:ffff::6')).toBe(false);
    expect(at('192.168.1.20')).toBe(false);
    expect(at('172.31.255.255')).toBe(false);
    expect(at('172.32.0.0')).toBe(true);
    expect(at('169.254.169.254')).toBe(false);
    expect(at('224.0.0.251')).toBe(false);
    expect(at('fe80::1')).toBe(false);
    expect(at('ff02::fb')).toBe(false);
    expect(at('8.8.8.8')).toBe(true);
    expect(at('2001:db8::1')).toBe(true);
  });

  it('is the minimal set: disjoint CIDRs, no two that merge into their parent', () => {
    for (const { node, mask } of cases) {
      const allowed = exceptLocalAllowedIps(keepFor(node, mask));
      for (const family of [4, 6] as const) {
        const width = family === 4 ? 32 : 128;
        const mine = allowed.map((text) => parseCidr(text)!).filter((cidr) => cidr.family === family);
        for (const [index, a] of mine.entries()) {
          for (const b of mine.slice(index + 1)) {
            const shorter = Math.min(a.prefixLength, b.prefixLength);
            const overlap = bitsOf(a.address, width).slice(0, shorter) === bitsOf(b.address, width).slice(0, shorter);
            expect(overlap, `${allowed.join(' ')}`).toBe(false);
            const siblings =
              a.prefixLength === b.prefixLength &&
              bitsOf(a.address, width).slice(0, a.prefixLength - 1) ===
                bitsOf(b.address, width).slice(0, a.prefixLength - 1);
            expect(siblings).toBe(false);
          }
        }
      }
      expect(allowed.length).toBeLessThanOrEqual(50);
    }
  });

  it('writes a range as its fewest aligned blocks', () => {
    expect(cidrsOfRanges([{ start: 0n, end: 2n ** 32n - 1n }], 4)).toEqual(['0.0.0.0/0']);
    expect(cidrsOfRanges([{ start: 1n, end: 6n }], 4)).toEqual([
      '0.0.0.1/32',
      '0.0.0.2/31',
      '0.0.0.4/31',
      '0.0.0.6/32',
    ]);
    expect(cidrsOfRanges([{ start: 0n, end: 2n ** 128n - 1n }], 6)).toEqual(['::/0']);
  });
});

describe('AllowedIPs per preset', () => {
  const keep = keepFor(2, 3);

  it('all traffic is everything', () => {
    expect(allowedIpsFor({ preset: 'all', routes: [] }, keep)).toEqual(['0.0.0.0/0', '::/0']);
  });

  it('custom routes keep the resolver inside the tunnel unless a route holds it', () => {
    expect(allowedIpsFor({ preset: 'custom', routes: ['203.0.113.0/24'] }, keep)).toEqual([
      '203.0.113.0/24',
      '100.64.0.3/32',
      'fd7a:5157:7769:ffff::3/128',
    ]);
    expect(allowedIpsFor({ preset: 'custom', routes: ['100.64.0.0/10', '::/0'] }, keep)).toEqual([
      '100.64.0.0/10',
      '::/0',
    ]);
  });
});

describe('custom routes as typed', () => {
  it('are written canonically, without duplicates', () => {
    expect(checkCustomRoutes(['192.168.1.7/24', ' 2001:DB8::1/32 ', '192.168.1.0/24', '203.0.113.9'], 32)).toEqual({
      routes: ['192.168.1.0/24', '2001:db8::/32', '203.0.113.9/32'],
    });
    expect(checkCustomRoutes(['10.0.0.0/8, 10.1.0.0/16\n172.16.0.0/12'], 32)).toEqual({
      routes: ['10.0.0.0/8', '10.1.0.0/16', '172.16.0.0/12'],
    });
  });

  it.each([
    [['example.com'], /"example.com" is not an IP address/],
    [['10.0.0.0/33'], /not an IP address/],
    [['300.1.1.1'], /not an IP address/],
    [['010.1.1.1/8'], /not an IP address/],
    [['::/129'], /not an IP address/],
    [[], /at least one route/],
    [['  '], /at least one route/],
    [Array.from({ length: 33 }, (_, index) => `10.${index}.0.0/16`), /At most 32 routes/],
  ])('refuses %j', (entries, problem) => {
    const check = checkCustomRoutes(entries, 32);
    expect('problem' in check && check.problem).toMatch(problem);
  });
});
