import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { connect, createSecureContext, createServer } from 'node:tls';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const run = promisify(execFile);

/**
 * Issue #25: a preshared key is only as post-quantum as the channel that delivered it. The gateway
 * serves plain HTTP behind a TLS proxy; this records what a TLS listener of our own Node would
 * negotiate, so the docs' claim (no ML-KEM in Node 20's OpenSSL 3.0: the hybrid X25519MLKEM768 has
 * to come from the proxy) fails here the day the runtime changes.
 */
let dir: string;
let key: string;
let cert: string;

beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'qw-privacy-psk-tls-'));
  await run('openssl', [
    'req',
    '-x509',
    '-newkey',
    'ec',
    '-pkeyopt',
    'ec_paramgen_curve:prime256v1',
    '-nodes',
    '-keyout',
    path.join(dir, 'key.pem'),
    '-out',
    path.join(dir, 'cert.pem'),
    '-days',
    '1',
    '-subj',
    '/CN=localhost',
  ]);
  key = await readFile(path.join(dir, 'key.pem'), 'utf8');
  cert = await readFile(path.join(dir, 'cert.pem'), 'utf8');
});

afterAll(async () => {
  if (dir) await rm(dir, { recursive: true, force: true });
});

describe("the product's own TLS key exchange (Node's OpenSSL)", () => {
  it(`has no X25519MLKEM768 (OpenSSL ${process.versions.openssl}): the hybrid group must come from the proxy`, () => {
    expect(() => createSecureContext({ ecdhCurve: 'X25519MLKEM768' })).toThrow(/ECDH curve/);
  });

  it('negotiates plain X25519 by default: classical, not post-quantum', async () => {
    const server = createServer({ key, cert, minVersion: 'TLSv1.3' }, (socket) => socket.end());
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const { port } = server.address() as AddressInfo;
      const group = await new Promise<unknown>((resolve, reject) => {
        const socket = connect({ host: '127.0.0.1', port, rejectUnauthorized: false }, () => {
          resolve(socket.getEphemeralKeyInfo());
          socket.end();
        });
        socket.on('error', reject);
      });
      expect(group).toMatchObject({ type: 'ECDH', name: 'X25519' });
    } finally {
      server.close();
    }
  });
});
