import { describe, expect, it } from 'vitest';
import {
  DEFAULT_ULA_PREFIX,
  MAX_NODES,
  deviceAddressCidrs,
  deviceIpv6For,
  intToIpv4,
  ipv4ToInt,
  lowestFreeHost,
  maskEndpoint,
  nodeSubnets,
} from '../src/index.ts';

/** Every address from `first` to `last` inclusive, as text. */
function range(first: string, last: string): string[] {
  const out: string[] = [];
  for (let value = ipv4ToInt(first); value <= ipv4ToInt(last); value += 1) out.push(intToIpv4(value));
  return out;
}

describe('ipv4ToInt / intToIpv4', () => {
  it.each([
    ['0.0.0.0', 0],
    ['0.0.0.1', 1],
    ['0.0.1.0', 256],
    ['10.64.0.1', 0x0a40_0001],
    ['127.0.0.1', 0x7f00_0001],
    ['192.168.255.255', 0xc0a8_ffff],
    ['255.255.255.255', 0xffff_ffff],
  ])('%s ↔ %i', (text, value) => {
    expect(ipv4ToInt(text)).toBe(value);
    expect(intToIpv4(value)).toBe(text);
  });

  it.each([
    '',
    '1.2.3',
    '1.2.3.4.5',
    '256.0.0.1',
    '1.2.3.-1',
    '01.2.3.4',
    '1.2.3.4 ',
    ' 1.2.3.4',
    '1..3.4',
    'a.b.c.d',
    '1.2.3.4/32',
    '0x1.2.3.4',
  ])('rejects %j', (text) => {
    expect(() => ipv4ToInt(text)).toThrow(/not an IPv4 address/);
  });

  it.each([-1, 2 ** 32, 1.5, Number.NaN])('intToIpv4 rejects %d', (value) => {
    expect(() => intToIpv4(value)).toThrow(RangeError);
  });

  it('round-trips a spread of values', () => {
    for (let value = 0; value <= 0xffff_ffff; value += 16_777_259) expect(ipv4ToInt(intToIpv4(value))).toBe(value);
  });
});

describe('nodeSubnets', () => {
  it('gives node 0 the first /16 and /64 of the plan', () => {
    expect(nodeSubnets(0)).toEqual({
      ipv4Cidr: '10.64.0.0/16',
      ipv6Cidr: 'fd7a:5157:7769::/64',
      nodeIpv4: '10.64.0.1',
      nodeIpv6: 'fd7a:5157:7769::1',
    });
  });

  it('gives node n the n-th /16 and the /64 with n in hex as the subnet id', () => {
    expect(nodeSubnets(1)).toEqual({
      ipv4Cidr: '10.65.0.0/16',
      ipv6Cidr: 'fd7a:5157:7769:1::/64',
      nodeIpv4: '10.65.0.1',
      nodeIpv6: 'fd7a:5157:7769:1::1',
    });
    expect(nodeSubnets(26).ipv6Cidr).toBe('fd7a:5157:7769:1a::/64');
    expect(nodeSubnets(63)).toEqual({
      ipv4Cidr: '10.127.0.0/16',
      ipv6Cidr: 'fd7a:5157:7769:3f::/64',
      nodeIpv4: '10.127.0.1',
      nodeIpv6: 'fd7a:5157:7769:3f::1',
    });
  });

  it('hands out 64 distinct subnets, all inside 10.64.0.0/10', () => {
    const all = Array.from({ length: MAX_NODES }, (_, index) => nodeSubnets(index));
    expect(new Set(all.map((subnets) => subnets.ipv4Cidr)).size).toBe(64);
    expect(new Set(all.map((subnets) => subnets.ipv6Cidr)).size).toBe(64);
    for (const { ipv4Cidr } of all) {
      const network = ipv4ToInt(ipv4Cidr.split('/')[0] ?? '');
      expect(network >>> 22).toBe(ipv4ToInt('10.64.0.0') >>> 22);
    }
  });

  it('uses the given ULA prefix, normalised', () => {
    expect(nodeSubnets(2, 'FD00:0001:0002::/48')).toEqual({
      ipv4Cidr: '10.66.0.0/16',
      ipv6Cidr: 'fd00:1:2:2::/64',
      nodeIpv4: '10.66.0.1',
      nodeIpv6: 'fd00:1:2:2::1',
    });
    expect(nodeSubnets(0, DEFAULT_ULA_PREFIX)).toEqual(nodeSubnets(0));
  });

  it.each([-1, 64, 65, 1.5, Number.NaN, Number.POSITIVE_INFINITY])('rejects node index %d', (index) => {
    expect(() => nodeSubnets(index)).toThrow(RangeError);
  });

  it.each(['fd7a:5157:7769::/56', 'fd7a:5157::/32', '2001:db8:1::/48', '10.0.0.0/8', 'nonsense', 'fd7a:5157:7769::'])(
    'rejects ULA prefix %j',
    (prefix) => {
      expect(() => nodeSubnets(0, prefix)).toThrow(/ULA prefix/);
    },
  );
});

describe('lowestFreeHost', () => {
  const subnet = '10.64.0.0/16';

  it('starts at .2: .0 is the network, .1 the node', () => {
    expect(lowestFreeHost(subnet, [])).toBe('10.64.0.2');
  });

  it('skips taken addresses and fills the lowest gap', () => {
    expect(lowestFreeHost(subnet, ['10.64.0.2'])).toBe('10.64.0.3');
    expect(lowestFreeHost(subnet, ['10.64.0.2', '10.64.0.3', '10.64.0.5'])).toBe('10.64.0.4');
    expect(lowestFreeHost(subnet, ['10.64.0.5', '10.64.0.3', '10.64.0.2', '10.64.0.3'])).toBe('10.64.0.4');
  });

  it('accepts /32s as taken entries', () => {
    expect(lowestFreeHost(subnet, ['10.64.0.2/32', '10.64.0.3'])).toBe('10.64.0.4');
  });

  it('treats .255 and .0 in the middle of a /16 as ordinary hosts', () => {
    expect(lowestFreeHost(subnet, range('10.64.0.2', '10.64.0.254'))).toBe('10.64.0.255');
    expect(lowestFreeHost(subnet, range('10.64.0.2', '10.64.0.255'))).toBe('10.64.1.0');
    expect(lowestFreeHost(subnet, range('10.64.0.2', '10.64.1.0'))).toBe('10.64.1.1');
  });

  it('gives the last host x.255.254 but never the broadcast x.255.255', () => {
    const allButLast = range('10.64.0.2', '10.64.255.253');
    expect(lowestFreeHost(subnet, allButLast)).toBe('10.64.255.254');
    expect(lowestFreeHost(subnet, [...allButLast, '10.64.255.254'])).toBeNull();
  });

  it('returns null when the subnet is full (65,533 device hosts in a /16)', () => {
    const full = range('10.64.0.2', '10.64.255.254');
    expect(full).toHaveLength(65_533);
    expect(lowestFreeHost(subnet, full)).toBeNull();
  });

  it('ignores taken addresses outside the subnet (other nodes, the node itself)', () => {
    expect(lowestFreeHost(subnet, ['10.65.0.2', '10.63.255.255', '10.64.0.0', '10.64.0.1', '10.64.255.255'])).toBe(
      '10.64.0.2',
    );
    expect(lowestFreeHost('10.65.0.0/16', range('10.64.0.2', '10.64.0.100'))).toBe('10.65.0.2');
  });

  it('works for any prefix length and takes the network of a CIDR with host bits', () => {
    expect(lowestFreeHost('192.168.7.0/24', [])).toBe('192.168.7.2');
    expect(lowestFreeHost('192.168.7.99/24', ['192.168.7.2'])).toBe('192.168.7.3');
    expect(lowestFreeHost('192.168.7.0/24', range('192.168.7.2', '192.168.7.254'))).toBeNull();
    expect(lowestFreeHost('192.168.7.0/30', [])).toBe('192.168.7.2');
    expect(lowestFreeHost('192.168.7.0/30', ['192.168.7.2'])).toBeNull();
    expect(lowestFreeHost('192.168.7.0/31', [])).toBeNull();
    expect(lowestFreeHost('192.168.7.0/32', [])).toBeNull();
  });

  it('accepts any iterable, such as a Set or a generator', () => {
    expect(lowestFreeHost(subnet, new Set(['10.64.0.2']))).toBe('10.64.0.3');
    function* taken() {
      yield '10.64.0.2';
      yield '10.64.0.3';
    }
    expect(lowestFreeHost(subnet, taken())).toBe('10.64.0.4');
  });

  it('rejects a subnet or taken entry that is not IPv4', () => {
    expect(() => lowestFreeHost('fd7a:5157:7769::/64', [])).toThrow(/not an IPv4 CIDR/);
    expect(() => lowestFreeHost('10.64.0.0/33', [])).toThrow(/not an IPv4 CIDR/);
    expect(() => lowestFreeHost(subnet, ['10.64.0.0/24'])).toThrow(/taken address/);
    expect(() => lowestFreeHost(subnet, ['fd7a:5157:7769::2'])).toThrow(/taken address/);
  });
});

describe('deviceIpv6For', () => {
  it('carries the IPv4 host number into the /64', () => {
    expect(deviceIpv6For('fd7a:5157:7769::/64', '10.64.0.2')).toBe('fd7a:5157:7769::2');
    expect(deviceIpv6For('fd7a:5157:7769::/64', '10.64.0.255')).toBe('fd7a:5157:7769::ff');
    expect(deviceIpv6For('fd7a:5157:7769::/64', '10.64.3.7')).toBe('fd7a:5157:7769::307');
    expect(deviceIpv6For('fd7a:5157:7769::/64', '10.64.255.254')).toBe('fd7a:5157:7769::fffe');
    expect(deviceIpv6For('fd7a:5157:7769:5::/64', '10.69.1.0')).toBe('fd7a:5157:7769:5::100');
  });

  it('maps the node .1 to the node ::1 for every node', () => {
    for (let index = 0; index < MAX_NODES; index += 1) {
      const subnets = nodeSubnets(index);
      expect(deviceIpv6For(subnets.ipv6Cidr, subnets.nodeIpv4)).toBe(subnets.nodeIpv6);
    }
  });

  it('is one-to-one over every host of a /16', () => {
    const { ipv6Cidr } = nodeSubnets(7);
    const ipv6 = new Set(range('10.71.0.0', '10.71.255.255').map((ipv4) => deviceIpv6For(ipv6Cidr, ipv4)));
    expect(ipv6.size).toBe(65_536);
  });

  it('honours another IPv4 prefix length', () => {
    expect(deviceIpv6For('fd00::/64', '172.16.5.9', 24)).toBe('fd00::9');
    expect(deviceIpv6For('fd00::/64', '172.16.5.9', 0)).toBe('fd00::ac10:509');
  });

  it('rejects what is not a /64 or not an IPv4 address', () => {
    expect(() => deviceIpv6For('fd7a:5157:7769::/48', '10.64.0.2')).toThrow(/IPv6 \/64/);
    expect(() => deviceIpv6For('10.64.0.0/16', '10.64.0.2')).toThrow(/IPv6 \/64/);
    expect(() => deviceIpv6For('fd7a:5157:7769::/64', 'fd7a::2')).toThrow(/IPv4/);
    expect(() => deviceIpv6For('fd7a:5157:7769::/64', '10.64.0.2', 33)).toThrow(RangeError);
  });
});

describe('deviceAddressCidrs', () => {
  it('gives the host routes in canonical form', () => {
    expect(deviceAddressCidrs('10.64.0.2', 'FD7A:5157:7769:0:0:0:0:2')).toEqual([
      '10.64.0.2/32',
      'fd7a:5157:7769::2/128',
    ]);
  });

  it('rejects a swapped pair', () => {
    expect(() => deviceAddressCidrs('fd7a::2', '10.64.0.2')).toThrow();
  });
});

describe('maskEndpoint', () => {
  it.each([
    ['203.0.113.77:51820', '203.0.113.0/24'],
    ['203.0.113.0:1', '203.0.113.0/24'],
    ['203.0.113.255:65535', '203.0.113.0/24'],
    ['0.0.0.0:0', '0.0.0.0/24'],
    ['203.0.113.77', '203.0.113.0/24'],
    ['  198.51.100.9:443 ', '198.51.100.0/24'],
    ['[2001:db8:abcd:12::5]:51820', '2001:db8:abcd::/48'],
    ['[2001:DB8:ABCD:FFFF:1::]:1', '2001:db8:abcd::/48'],
    ['[2001:db8::1]:51820', '2001:db8::/48'],
    ['[2001:db8:0:1::1]', '2001:db8::/48'],
    ['[fe80::1%eth0]:51820', 'fe80::/48'],
    ['[::ffff:203.0.113.77]:51820', '203.0.113.0/24'],
    ['[::1]:51820', '::/48'],
  ])('%j → %j', (endpoint, masked) => {
    expect(maskEndpoint(endpoint)).toBe(masked);
  });

  it.each([
    '(none)',
    '',
    'vpn.example.com:51820',
    '999.1.1.1:51820',
    '1.2.3.4:65536',
    '1.2.3.4:',
    '1.2.3:51820',
    '2001:db8::1:51820',
    '2001:db8::1',
    '[2001:db8::1]:99999',
    '[2001:db8::1',
    '[not-an-address]:1',
    '[1.2.3.4]:51820',
  ])('%j → null', (endpoint) => {
    expect(maskEndpoint(endpoint)).toBeNull();
  });

  it('never keeps the last IPv4 octet or anything after the third IPv6 group', () => {
    for (let last = 0; last < 256; last += 1) expect(maskEndpoint(`192.0.2.${last}:51820`)).toBe('192.0.2.0/24');
    for (const tail of [':1', 'ffff:ffff:ffff:ffff:ffff', '8000::']) {
      expect(maskEndpoint(`[2001:db8:1:${tail}]:51820`)).toBe('2001:db8:1::/48');
    }
  });
});
