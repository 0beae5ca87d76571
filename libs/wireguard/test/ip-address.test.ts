import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { canonicalAddress, canonicalCidr, formatIpv6, parseCidr, parseIpv6 } from '../src/index.ts';

/** WHATWG URL serialises IPv6 hosts the RFC 5952 way (but IPv4-mapped ones in hex): an independent oracle. */
function urlCanonical(address: string): string {
  return new URL(`http://[${address}]/`).hostname.slice(1, -1);
}

function bigintFrom(bytes: Buffer): bigint {
  return BigInt(`0x${bytes.toString('hex')}`);
}

describe('parseIpv6 / formatIpv6', () => {
  it.each([
    ['::', '::'],
    ['::1', '::1'],
    ['1::', '1::'],
    ['2001:db8::', '2001:db8::'],
    ['2001:0DB8:0000:0000:0000:0000:0000:0001', '2001:db8::1'],
    ['2001:db8:0:0:1:0:0:1', '2001:db8::1:0:0:1'],
    ['1:0:0:2:0:0:0:3', '1:0:0:2::3'],
    ['1:2:3:4:5:6:7::', '1:2:3:4:5:6:7:0'],
    ['fd7a:5157:7769:0::1', 'fd7a:5157:7769::1'],
    ['::ffff:192.0.2.1', '::ffff:192.0.2.1'],
    ['::ffff:c000:201', '::ffff:192.0.2.1'],
    ['64:ff9b::192.0.2.33', '64:ff9b::c000:221'],
    ['1:2:3:4:5:6:7:8', '1:2:3:4:5:6:7:8'],
  ])('%s → %s', (input, canonical) => {
    const value = parseIpv6(input);
    expect(value).not.toBeNull();
    expect(formatIpv6(value ?? 0n)).toBe(canonical);
  });

  it.each([
    '',
    ':',
    ':::',
    '1::2::3',
    ':1::',
    '1:2:3:4:5:6:7:8:9',
    '1:2:3:4:5:6:7',
    '12345::',
    'g::',
    '::1.2.3',
    '::256.1.1.1',
    '1.2.3.4',
    'fe80::1%eth0',
    ' ::1',
  ])('rejects %j', (input) => {
    expect(parseIpv6(input)).toBeNull();
  });

  it('agrees with the WHATWG URL serialiser on random and zero-rich addresses', () => {
    for (let i = 0; i < 2000; i += 1) {
      const bytes = randomBytes(16);
      // Zero out random groups so runs of zeros of every length and position occur.
      for (let group = 0; group < 8; group += 1) if (Math.random() < 0.5) bytes.writeUInt16BE(0, group * 2);
      const value = bigintFrom(bytes);
      if (value >> 32n === 0xffffn) continue;
      const text = formatIpv6(value);
      expect(text).toBe(urlCanonical(text));
      expect(parseIpv6(text)).toBe(value);
    }
  });

  it('rejects values that are not 128-bit', () => {
    expect(() => formatIpv6(-1n)).toThrow(RangeError);
    expect(() => formatIpv6(1n << 128n)).toThrow(RangeError);
  });
});

describe('canonicalCidr', () => {
  it.each([
    ['10.64.0.2/32', '10.64.0.2/32'],
    ['10.64.0.2', '10.64.0.2/32'],
    ['10.64.7.9/16', '10.64.0.0/16'],
    ['0.0.0.0/0', '0.0.0.0/0'],
    ['FD7A:5157:7769:0:0:0:0:2/128', 'fd7a:5157:7769::2/128'],
    ['fd7a:5157:7769::2', 'fd7a:5157:7769::2/128'],
    ['fd7a:5157:7769:5:1::/64', 'fd7a:5157:7769:5::/64'],
    ['::/0', '::/0'],
    [' 10.0.0.1/8 ', '10.0.0.0/8'],
  ])('%j → %j', (input, canonical) => {
    expect(canonicalCidr(input)).toBe(canonical);
  });

  it.each(['10.0.0.1/33', '::/129', '10.0.0.1/', '10.0.0.1/08', '10.0.0.1/-1', 'x/8', '', '/8'])(
    'rejects %j',
    (input) => {
      expect(canonicalCidr(input)).toBeNull();
      expect(parseCidr(input)).toBeNull();
    },
  );
});

describe('canonicalAddress', () => {
  it('writes one address one way: IPv4 as a quad (also mapped into IPv6), IPv6 in RFC 5952 form', () => {
    expect(canonicalAddress(' 198.51.100.7 ')).toBe('198.51.100.7');
    expect(canonicalAddress('::ffff:198.51.100.7')).toBe('198.51.100.7');
    expect(canonicalAddress('::FFFF:c633:6407')).toBe('198.51.100.7');
    expect(canonicalAddress('2001:DB8:0:0:0:0:0:7')).toBe('2001:db8::7');
    expect(canonicalAddress('::1')).toBe('::1');
  });

  it('is null for what is not one address', () => {
    for (const text of ['vpn.example.com', '198.51.100.0/24', '2001:db8::/32', '198.051.100.7', 'fe80::1%eth0', ''])
      expect(canonicalAddress(text)).toBeNull();
  });
});
