import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  generateKeyPair,
  generatePresharedKey,
  hexToKey,
  keyToHex,
  presharedKeyDigest,
  uapiGet,
  uapiLatestHandshakes,
  UapiGetParser,
  parseUapiHandshakes,
  uapiSet,
  uapiSetRequest,
  uapiSocketPath,
  type WgDumpPeer,
} from '../src/index.ts';

const run = promisify(execFile);
const key = (c: string) => `${c.repeat(42)}A=`;

describe('UAPI requests', () => {
  it('carries keys as hex and back, an unset key as none', () => {
    const { publicKey } = generateKeyPair();
    expect(keyToHex(publicKey)).toMatch(/^[0-9a-f]{64}$/);
    expect(hexToKey(keyToHex(publicKey))).toBe(publicKey);
    expect(hexToKey('0'.repeat(64))).toBeNull();
    expect(() => hexToKey('zz')).toThrow(/64 hex/);
  });

  it('writes a set as wg does: replace the allowed IPs, preshared key or zeros, remove', () => {
    const psk = generatePresharedKey();
    const [request] = uapiSetRequest([
      { publicKey: key('a'), allowedIps: ['10.64.0.2', 'fd7a:5157:7769:0::2/128'], presharedKey: psk },
      { publicKey: key('b'), allowedIps: [], presharedKey: null },
      { publicKey: key('c'), remove: true },
    ]);
    expect(request).toBe(
      'set=1\n' +
        `public_key=${keyToHex(key('a'))}\npreshared_key=${keyToHex(psk)}\nreplace_allowed_ips=true\n` +
        'allowed_ip=10.64.0.2/32\nallowed_ip=fd7a:5157:7769:0::2/128\n' +
        `public_key=${keyToHex(key('b'))}\npreshared_key=${'0'.repeat(64)}\nreplace_allowed_ips=true\n` +
        `public_key=${keyToHex(key('c'))}\nremove=true\n\n`,
    );
  });

  it('streams a large set in pieces, one set=1 and one blank line in all', () => {
    const changes = Array.from({ length: 2500 }, () => ({
      publicKey: randomBytes(32).toString('base64'),
      allowedIps: ['10.64.0.2/32'],
    }));
    const pieces = uapiSetRequest(changes, 1000);
    expect(pieces).toHaveLength(3);
    const whole = pieces.join('');
    expect(whole.match(/set=1\n/g)).toHaveLength(1);
    expect(whole.endsWith('allowed_ip=10.64.0.2/32\n\n')).toBe(true);
    expect(whole.match(/\n\n/g)).toHaveLength(1);
  });

  it('refuses a bad key or address before anything is sent, without echoing the key', () => {
    expect(() => uapiSetRequest([{ publicKey: 'secret-not-a-key', allowedIps: [] }])).toThrow(
      /^peer public key is not a WireGuard key$/,
    );
    for (const bad of ['10.0.0.300/32', '10.0.0.1/33', 'fe80::1%eth0/128', '10.0.0.1/', 'x/32', '10.0.0.1/3 2'])
      expect(() => uapiSetRequest([{ publicKey: key('a'), allowedIps: [bad] }])).toThrow(/allowed IP/);
    expect(() => uapiSetRequest([{ publicKey: key('a'), presharedKey: 'nope' }])).toThrow(
      /^preshared key is not a WireGuard key/,
    );
    expect(() => uapiSocketPath('../etc')).toThrow(/interface name/);
  });
});

describe('UAPI get answers, parsed as they stream', () => {
  const privateKey = generateKeyPair().privateKey;
  const psk = generatePresharedKey();
  const answer =
    `private_key=${keyToHex(privateKey)}\nlisten_port=51820\n` +
    `public_key=${keyToHex(key('a'))}\npreshared_key=${keyToHex(psk)}\nprotocol_version=1\n` +
    'endpoint=203.0.113.7:40000\nlast_handshake_time_sec=1700000000\nlast_handshake_time_nsec=5\n' +
    'tx_bytes=10\nrx_bytes=20\npersistent_keepalive_interval=25\nallowed_ip=10.64.0.2/32\nallowed_ip=fd7a::2/128\n' +
    `public_key=${keyToHex(key('b'))}\npreshared_key=${'0'.repeat(64)}\nlast_handshake_time_sec=0\n` +
    'persistent_keepalive_interval=0\nerrno=0\n\n';

  function parse(chunkSize: number) {
    const peers: WgDumpPeer[] = [];
    const parser = new UapiGetParser((peer) => peers.push(peer));
    for (let i = 0; i < answer.length; i += chunkSize) parser.push(answer.slice(i, i + chunkSize));
    parser.end();
    return { peers, parser };
  }

  it('gives the same peers however the answer is cut, with no secret kept', () => {
    const whole = parse(answer.length);
    for (const size of [1, 7, 64]) expect(parse(size).peers).toEqual(whole.peers);
    expect(whole.parser.interface).toMatchObject({ hasPrivateKey: true, listenPort: 51820, fwmark: null });
    expect(whole.peers).toEqual([
      {
        publicKey: key('a'),
        hasPresharedKey: true,
        presharedKeyDigest: presharedKeyDigest(psk),
        endpoint: '203.0.113.7:40000',
        allowedIps: ['10.64.0.2/32', 'fd7a::2/128'],
        latestHandshake: 1700000000,
        transferRx: 20,
        transferTx: 10,
        persistentKeepalive: 25,
      },
      expect.objectContaining({ publicKey: key('b'), hasPresharedKey: false, presharedKeyDigest: null }),
    ]);
    const text = JSON.stringify(whole);
    for (const secret of [privateKey, psk, keyToHex(privateKey), keyToHex(psk)]) expect(text).not.toContain(secret);
  });

  it('reads only keys and handshakes for the watch, as the whole parse reads them', async () => {
    expect([...(await parseUapiHandshakes(Buffer.from(answer)))]).toEqual([
      [key('a'), 1700000000],
      [key('b'), 0],
    ]);
    expect([...(await parseUapiHandshakes(Buffer.from(answer)))]).toEqual(
      parse(answer.length).peers.map((p) => [p.publicKey, p.latestHandshake]),
    );
    // A peer first in the answer (an interface with neither key nor port), one without a handshake
    // line, and an interface with no peers.
    const bare = `public_key=${keyToHex(key('c'))}\nallowed_ip=10.64.0.3/32\n${answer.slice(answer.indexOf('public_key='))}`;
    expect([...(await parseUapiHandshakes(Buffer.from(bare)))]).toEqual([
      [key('c'), 0],
      [key('a'), 1700000000],
      [key('b'), 0],
    ]);
    expect((await parseUapiHandshakes(Buffer.from('listen_port=51820\nerrno=0\n\n'))).size).toBe(0);
  });

  it('refuses for the watch what the whole parse refuses', async () => {
    await expect(parseUapiHandshakes(Buffer.from(answer.slice(0, 200)))).rejects.toThrow(/before its errno/);
    await expect(parseUapiHandshakes(Buffer.from('errno=22\n\n'))).rejects.toThrow(/errno=22/);
    await expect(parseUapiHandshakes(Buffer.from(answer.replace(keyToHex(key('b')), '0'.repeat(64))))).rejects.toThrow(
      /all-zero/,
    );
    await expect(parseUapiHandshakes(Buffer.from(answer.replace(keyToHex(key('b')), 'zz'.repeat(32))))).rejects.toThrow(
      /64 hex/,
    );
    await expect(
      parseUapiHandshakes(Buffer.from(answer.replace(keyToHex(key('b')), keyToHex(key('b')).slice(2)))),
    ).rejects.toThrow(/public key/);
    // A byte that is not ASCII is never read as the hex digit its low seven bits spell (0xe1: 'a').
    const bytes = Buffer.from(answer, 'latin1');
    bytes[answer.indexOf(keyToHex(key('b')))] = 0xe1;
    await expect(parseUapiHandshakes(bytes)).rejects.toThrow(/64 hex/);
    await expect(parseUapiHandshakes(Buffer.from(answer.replace('=1700000000', '=-1')))).rejects.toThrow(
      /non-negative integer/,
    );
  });

  it('refuses an answer cut short or saying an error', () => {
    const cut = new UapiGetParser(() => undefined);
    cut.push(answer.slice(0, 200));
    expect(() => cut.end()).toThrow(/before its errno/);
    const refused = new UapiGetParser(() => undefined);
    refused.push('errno=22\n\n');
    expect(() => refused.end()).toThrow(/errno=22/);
  });

  describe('a get over a socket', () => {
    /** A socket that answers each `get=1` with `reply`, in pieces of `size` characters, keeping the connection open as wireguard-go does. */
    async function fakeInterface(reply: string, size: number): Promise<{ path: string; close(): Promise<void> }> {
      const dir = await mkdtemp(path.join(tmpdir(), 'qw-uapi-'));
      const socketPath = path.join(dir, 'wg.sock');
      const server = createServer((connection) => {
        connection.on('data', async () => {
          for (let i = 0; i < reply.length; i += size) {
            connection.write(reply.slice(i, i + size));
            await new Promise((resolve) => setImmediate(resolve));
          }
        });
        connection.on('error', () => undefined);
      });
      await new Promise<void>((resolve) => server.listen(socketPath, resolve));
      return {
        path: socketPath,
        close: async () => {
          await new Promise((resolve) => server.close(resolve));
          await rm(dir, { recursive: true, force: true });
        },
      };
    }

    it('ends at the errno line and blank line however they arrive, and parses the whole answer', async () => {
      for (const size of [1, 5, 4096]) {
        const fake = await fakeInterface(answer, size);
        try {
          const handshakes = await uapiLatestHandshakes(fake.path, 5000);
          expect([...handshakes]).toEqual([
            [key('a'), 1700000000],
            [key('b'), 0],
          ]);
        } finally {
          await fake.close();
        }
      }
    });

    it('refuses a get the interface answered with an error', async () => {
      const fake = await fakeInterface('errno=22\n\n', 3);
      try {
        await expect(uapiGet(fake.path, 5000)).rejects.toThrow(/errno=22/);
      } finally {
        await fake.close();
      }
    });
  });
});

// Against a real wireguard-go in a network namespace (root, wireguard-go and wg needed).
const canRun =
  process.getuid?.() === 0 &&
  (await run('sh', ['-c', 'command -v wireguard-go && command -v wg']).then(
    () => true,
    () => false,
  ));
if (!canRun) console.warn('uapi.test: no root or no wireguard-go/wg; the real-socket tests are skipped');

describe.runIf(canRun)('on a real wireguard-go socket', () => {
  const id = randomBytes(3).toString('hex');
  const ns = `qwu-${id}`;
  const iface = `wgu${id}`;
  const socket = uapiSocketPath(iface);
  const wg = async (...args: string[]) => (await run('ip', ['netns', 'exec', ns, 'wg', ...args])).stdout;

  beforeAll(async () => {
    await run('ip', ['netns', 'add', ns]);
    await run('ip', ['netns', 'exec', ns, 'wireguard-go', iface]);
  });
  afterAll(async () => {
    await run('ip', ['netns', 'exec', ns, 'ip', 'link', 'delete', iface]).catch(() => undefined);
    await run('ip', ['netns', 'delete', ns]).catch(() => undefined);
  });

  it('sets, reads back, updates and removes peers as `wg show` sees them', async () => {
    const psk = generatePresharedKey();
    const [a, b, c] = [generateKeyPair().publicKey, generateKeyPair().publicKey, generateKeyPair().publicKey];
    await uapiSet(socket, [
      { publicKey: a, allowedIps: ['10.64.0.2/32', 'fd7a:5157:7769::2/128'], presharedKey: psk },
      { publicKey: b, allowedIps: ['10.64.0.3/32'] },
      { publicKey: c, allowedIps: ['10.64.0.4/32'] },
    ]);
    expect((await wg('show', iface, 'preshared-keys')).trim().split('\n')).toContain(`${a}\t${psk}`);
    const dump = await uapiGet(socket);
    expect(dump.peers.map((p) => p.publicKey).sort()).toEqual([a, b, c].sort());
    expect(dump.peers.find((p) => p.publicKey === a)).toMatchObject({
      allowedIps: ['10.64.0.2/32', 'fd7a:5157:7769::2/128'],
      presharedKeyDigest: presharedKeyDigest(psk),
    });

    // The address moves to b, a's key goes, c leaves: one set.
    await uapiSet(socket, [
      { publicKey: a, allowedIps: ['10.64.0.2/32'], presharedKey: null },
      { publicKey: b, allowedIps: ['10.64.0.3/32', 'fd7a:5157:7769::2/128'] },
      { publicKey: c, remove: true },
    ]);
    const after = await uapiGet(socket);
    expect(after.peers.map((p) => [p.publicKey, p.allowedIps, p.hasPresharedKey]).sort()).toEqual(
      [
        [a, ['10.64.0.2/32'], false],
        [b, ['10.64.0.3/32', 'fd7a:5157:7769::2/128'], false],
      ].sort(),
    );
    const handshakes = await uapiLatestHandshakes(socket);
    expect([...handshakes.entries()].sort()).toEqual(
      [
        [a, 0],
        [b, 0],
      ].sort(),
    );
  });

  it('streams 5,000 peers in one set and reads them back', async () => {
    const changes = Array.from({ length: 5000 }, (_, i) => ({
      publicKey: randomBytes(32).toString('base64'),
      allowedIps: [`10.65.${i >> 8}.${i & 255}/32`],
    }));
    await uapiSet(socket, changes);
    const dump = await uapiGet(socket);
    const seen = new Set(dump.peers.map((p) => p.publicKey));
    expect(changes.every((change) => seen.has(change.publicKey))).toBe(true);
    // The watch's reading (in slices of 1,000 peers) finds every peer the whole parse finds.
    const handshakes = await uapiLatestHandshakes(socket);
    expect(handshakes.size).toBe(dump.peers.length);
    expect(dump.peers.every((p) => handshakes.get(p.publicKey) === p.latestHandshake)).toBe(true);
    await uapiSet(
      socket,
      changes.map((change) => ({ publicKey: change.publicKey, remove: true })),
    );
    expect((await uapiGet(socket)).peers).toHaveLength(2);
  });

  it('removing a peer that is not there is no error (as with wg set); a missing socket is', async () => {
    await expect(uapiSet(socket, [{ publicKey: generateKeyPair().publicKey, remove: true }])).resolves.toBeUndefined();
    await expect(uapiGet(uapiSocketPath(`wgn${id}x`))).rejects.toThrow(/ENOENT/);
  });
});
