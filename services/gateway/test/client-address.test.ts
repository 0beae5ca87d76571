import { once } from 'node:events';
import { connect } from 'node:net';
import type { EgressServer } from '@qw/contracts';
import Fastify from 'fastify';
import { describe, expect, it } from 'vitest';
import { clientAddress, ipv6NetworkKey } from '../src/auth/client-address.ts';
import { trustProxyOption } from '../src/config.ts';
import { connectionCheck } from '../src/servers/connection-check.routes.ts';

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

describe('a client that has gone before its request is answered', () => {
  it('has no address any more, and neither the rate limit key nor the connection check fails on it', async () => {
    const app = Fastify();
    const seen: Array<string | undefined> = [];
    app.get('/slow', async (request) => {
      // Node remembers a socket's peer once asked; this handler first asks after the close.
      if (request.headers['x-wait'] === 'close') {
        seen.push('waiting');
        await once(request.raw.socket, 'close');
      }
      seen.push(clientAddress(request));
      return {};
    });
    await app.listen({ host: '127.0.0.1', port: 0 });
    try {
      const { port } = app.server.address() as { port: number };
      expect((await fetch(`http://127.0.0.1:${port}/slow`)).status).toBe(200);
      const socket = connect(port, '127.0.0.1');
      await once(socket, 'connect');
      socket.write('GET /slow HTTP/1.1\r\nhost: x\r\nx-wait: close\r\n\r\n');
      await expect.poll(() => seen.length).toBe(2);
      socket.destroy();
      await expect.poll(() => seen.length).toBe(3);
    } finally {
      await app.close();
    }
    // While the client is there its address is known; once the socket has closed it is not.
    expect(seen).toEqual(['127.0.0.1', 'waiting', undefined]);
    expect(ipv6NetworkKey(undefined)).toBe('gone');
    const servers: EgressServer[] = [
      { name: 'fra-1', city: 'Frankfurt', region: 'europe', egress: ['127.0.0.1'], resolvers: [] },
    ];
    expect(connectionCheck('127.0.0.1', servers).protected).toBe(true);
    expect(connectionCheck(undefined, servers)).toEqual({ protected: false, server: null, resolvers: [] });
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
