import { spawn } from 'node:child_process';
import { connect } from 'node:net';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { eventually, freePort } from '@qw/testkit';
import { tunnelCheckIpv4 } from '@qw/contracts';
import { tunnelCheckAddresses } from '@qw/wireguard';
import { corsHeaders, tunnelCheckAnswer, ulaPrefixOf } from '../src/tunnel-check.ts';

const laptop = 'b7ctg0TqXdlMY7Mn3e1hq2hnvTsmCaJoTq2EJ7zr0l0=';
const phone = 'Hd5D8f0ZMw4YiuzMBgPO6QNR9ZI3S3vFrBtbcXBFi1E=';
const peers = [
  { publicKey: laptop, allowedIps: ['10.64.0.2/32', 'fd7a:5157:7769::2/128'] },
  { publicKey: phone, allowedIps: ['10.64.0.3/32', 'fd7a:5157:7769::3/128'] },
];
const settings = { node: 'fra-1', resolvers: ['10.64.0.1', 'fd7a:5157:7769::1'] };

describe('tunnelCheckAnswer', () => {
  it('names the peer whose allowed IPs hold the source, IPv4, IPv6 and IPv4-mapped alike', () => {
    for (const [source, key] of [
      ['10.64.0.2', laptop],
      ['::ffff:10.64.0.3', phone],
      ['fd7a:5157:7769::3', phone],
      ['FD7A:5157:7769:0::2', laptop],
    ] as const)
      expect(tunnelCheckAnswer(source, peers, settings)).toEqual({
        through_tunnel: true,
        public_key: key,
        node: 'fra-1',
        resolvers: settings.resolvers,
      });
  });

  it('says not through the tunnel for any other source, and for garbage', () => {
    for (const source of ['10.64.0.4', '203.0.113.9', '127.0.0.1', 'fd7a:5157:7769::4', '', 'not-an-address'])
      expect(tunnelCheckAnswer(source, peers, settings)).toMatchObject({ through_tunnel: false, public_key: null });
  });

  it('matches a peer with a wider allowed network (a router) by prefix', () => {
    const router = [{ publicKey: laptop, allowedIps: ['10.64.8.0/24'] }];
    expect(tunnelCheckAnswer('10.64.8.77', router, settings).public_key).toBe(laptop);
    expect(tunnelCheckAnswer('10.64.9.1', router, settings).public_key).toBeNull();
  });
});

describe('corsHeaders', () => {
  it("lets only the site's own origins read the answer", () => {
    expect(corsHeaders('https://quietwire.net', ['https://quietwire.net'])).toMatchObject({
      'access-control-allow-origin': 'https://quietwire.net',
      'access-control-allow-private-network': 'true',
    });
    expect(corsHeaders('https://tracker.example', ['https://quietwire.net'])).toEqual({ vary: 'Origin' });
    expect(corsHeaders(undefined, ['https://quietwire.net'])).toEqual({ vary: 'Origin' });
  });
});

describe('the check addresses', () => {
  it('are 100.64.0.254 and <ula>:ffff::fe, from the node’s own network', () => {
    expect(ulaPrefixOf('fd7a:5157:7769:3::/64')).toBe('fd7a:5157:7769::/48');
    expect(tunnelCheckAddresses(ulaPrefixOf('fd00:1:2:5::/64'))).toEqual({
      ipv4: tunnelCheckIpv4,
      ipv6: 'fd00:1:2:ffff::fe',
    });
    expect(() => ulaPrefixOf('10.64.0.0/16')).toThrow();
  });
});

describe('the check server', () => {
  it('ends with its agent, even one killed outright, leaving the port free for the next', async () => {
    const port = await freePort();
    const parent = spawn(
      process.execPath,
      ['--import', 'tsx', fileURLToPath(new URL('./support/tunnel-check-parent.ts', import.meta.url)), String(port)],
      {
        stdio: ['ignore', 'pipe', 'inherit'],
      },
    );
    await new Promise<void>((resolve, reject) => {
      parent.stdout.on('data', (chunk: Buffer) => chunk.toString().includes('started') && resolve());
      parent.once('exit', (code) => reject(new Error(`the stand-in agent exited (${code})`)));
    });
    // It listens while its agent lives.
    expect(await accepts(port)).toBe(true);
    parent.kill('SIGKILL');
    await eventually(async () => !(await accepts(port)), 15_000, 100);
    expect(await accepts(port)).toBe(false);
  }, 30_000);
});

/** Whether something accepts a TCP connection on 127.0.0.1:`port`. */
function accepts(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ host: '127.0.0.1', port });
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}
