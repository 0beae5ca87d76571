import { describe, expect, it } from 'vitest';
import { parseWgDump, presharedKeyDigest } from '../src/index.ts';

const serverPrivate = 'cGZrsRNh5/0x8TWdpm9T3i5LG4YCC9ywCqD4ENcQbEQ=';
const serverPublic = 'Hd5D8f0ZMw4YiuzMBgPO6QNR9ZI3S3vFrBtbcXBFi1E=';
const psk = 'FpCyhws9cxwWoV4xELtfJvjJN+zQVRPISllRWgeopVE=';
const peers = {
  laptop: 'xTIBA5rboUvnH4htodjb6e697QjLERt1NAB4mZqp8Dg=',
  phone: 'TrMvSoP4jYQlY6RIzBgbssQqY3vxI2Pi+y71lOWWXX0=',
  tablet: 'gN65BkIKy1eCE9pP1wdc8ROUtkHLF2PfAqYdyYBz6EA=',
  spare: 'b7ctg0TqXdlMY7Mn3e1hq2hnvTsmCaJoTq2EJ7zr0l0=',
};

/** `wg show wg0 dump` of a node with four peers, as wg prints it (tabs, newline-terminated). */
const sample = [
  [serverPrivate, serverPublic, '51820', 'off'],
  [
    peers.laptop,
    '(none)',
    '203.0.113.77:51820',
    '10.64.0.2/32,fd7a:5157:7769::2/128',
    '1732238400',
    '1234567',
    '89012345',
    'off',
  ],
  [
    peers.phone,
    psk,
    '[2001:db8:abcd:12::5]:40112',
    '10.64.0.3/32,fd7a:5157:7769::3/128',
    '1732238100',
    '0',
    '148',
    '25',
  ],
  [peers.tablet, '(none)', '(none)', '10.64.0.4/32,fd7a:5157:7769::4/128', '0', '0', '0', 'off'],
  [peers.spare, '(none)', '198.51.100.3:1024', '(none)', '1700000000', '9007199254740991', '42', '25'],
]
  .map((fields) => fields.join('\t'))
  .join('\n')
  .concat('\n');

describe('parseWgDump', () => {
  const dump = parseWgDump(sample);

  it('reads the interface line without keeping the private key', () => {
    expect(dump.interface).toEqual({ hasPrivateKey: true, publicKey: serverPublic, listenPort: 51820, fwmark: null });
  });

  it('reads every peer', () => {
    expect(dump.peers).toEqual([
      {
        publicKey: peers.laptop,
        hasPresharedKey: false,
        presharedKeyDigest: null,
        endpoint: '203.0.113.77:51820',
        allowedIps: ['10.64.0.2/32', 'fd7a:5157:7769::2/128'],
        latestHandshake: 1732238400,
        transferRx: 1234567,
        transferTx: 89012345,
        persistentKeepalive: null,
      },
      {
        publicKey: peers.phone,
        hasPresharedKey: true,
        presharedKeyDigest: presharedKeyDigest(psk),
        endpoint: '[2001:db8:abcd:12::5]:40112',
        allowedIps: ['10.64.0.3/32', 'fd7a:5157:7769::3/128'],
        latestHandshake: 1732238100,
        transferRx: 0,
        transferTx: 148,
        persistentKeepalive: 25,
      },
      {
        publicKey: peers.tablet,
        hasPresharedKey: false,
        presharedKeyDigest: null,
        endpoint: null,
        allowedIps: ['10.64.0.4/32', 'fd7a:5157:7769::4/128'],
        latestHandshake: 0,
        transferRx: 0,
        transferTx: 0,
        persistentKeepalive: null,
      },
      {
        publicKey: peers.spare,
        hasPresharedKey: false,
        presharedKeyDigest: null,
        endpoint: '198.51.100.3:1024',
        allowedIps: [],
        latestHandshake: 1700000000,
        transferRx: Number.MAX_SAFE_INTEGER,
        transferTx: 42,
        persistentKeepalive: 25,
      },
    ]);
  });

  it('keeps no secret from the dump', () => {
    const json = JSON.stringify(dump);
    expect(json).not.toContain(serverPrivate);
    expect(json).not.toContain(psk);
  });

  it('reads an interface with no peers, an fwmark, and no keys set', () => {
    expect(parseWgDump('(none)\t(none)\t0\t0xca6c\n')).toEqual({
      interface: { hasPrivateKey: false, publicKey: null, listenPort: 0, fwmark: 0xca6c },
      peers: [],
    });
  });

  it('treats an all-zero preshared key (older wg) as none, and tolerates CRLF', () => {
    const zero = `${'A'.repeat(43)}=`;
    const text = `${serverPrivate}\t${serverPublic}\t51820\toff\r\n${peers.laptop}\t${zero}\t(none)\t(none)\t0\t0\t0\toff\r\n`;
    expect(parseWgDump(text).peers[0]?.hasPresharedKey).toBe(false);
  });

  it.each([
    ['empty output', '', /empty/],
    ['`wg show all dump` output', `wg0\t${serverPrivate}\t${serverPublic}\t51820\toff\n`, /one interface/],
    [
      'a short peer line',
      `${serverPrivate}\t${serverPublic}\t51820\toff\n${peers.laptop}\t(none)\t(none)\n`,
      /line 2: expected 8/,
    ],
    [
      'a bad peer key',
      `${serverPrivate}\t${serverPublic}\t51820\toff\nnot-a-key\t(none)\t(none)\t(none)\t0\t0\t0\toff\n`,
      /line 2: peer public key/,
    ],
    [
      'a bad handshake',
      `${serverPrivate}\t${serverPublic}\t51820\toff\n${peers.laptop}\t(none)\t(none)\t(none)\t-1\t0\t0\toff\n`,
      /latest handshake/,
    ],
    [
      'a bad keepalive',
      `${serverPrivate}\t${serverPublic}\t51820\toff\n${peers.laptop}\t(none)\t(none)\t(none)\t0\t0\t0\tnever\n`,
      /persistent keepalive/,
    ],
    ['a bad fwmark', `${serverPrivate}\t${serverPublic}\t51820\tmark\n`, /fwmark/],
    ['a bad listen port', `${serverPrivate}\t${serverPublic}\tport\toff\n`, /listen port/],
  ])('refuses %s', (_case, text, message) => {
    expect(() => parseWgDump(text)).toThrow(message);
  });

  it('does not put keys into its errors', () => {
    const text = `${serverPrivate}\t${serverPublic}\t51820\toff\n${peers.laptop}\t${psk.slice(1)}\t(none)\t(none)\t0\t0\t0\toff\n`;
    expect(() => parseWgDump(text)).toThrow(
      expect.objectContaining({ message: expect.not.stringContaining(psk.slice(1)) }),
    );
  });
});
