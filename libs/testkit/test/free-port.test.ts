import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { describe, expect, it } from 'vitest';
import { freePort } from '../src/nats.ts';

const ephemeralFloor = Number(readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/)[0]);

describe('freePort', () => {
  it('answers ports below the range outgoing connections take theirs from, each one a server can listen on', async () => {
    for (let i = 0; i < 20; i++) {
      const port = await freePort();
      expect(port).toBeGreaterThanOrEqual(10_000);
      expect(port).toBeLessThan(ephemeralFloor);
      const server = createServer();
      await new Promise<void>((resolve, reject) => server.once('error', reject).listen(port, '127.0.0.1', resolve));
      await new Promise((resolve) => server.close(resolve));
    }
  });
});
