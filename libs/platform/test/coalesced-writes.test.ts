import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connect, type NatsConnection } from '@nats-io/transport-node';
import { sharedNatsUrl, testNamespace } from '@qw/testkit';
import { coalesceWrites } from '../src/bus/coalesced-writes.ts';

/** Counts the writes the connection hands its socket (nats-core's transport, as the module sees it). */
function countWrites(nc: NatsConnection): { writes: () => number } {
  const transport = (nc as unknown as { protocol: { transport: { send(frame: Uint8Array): void } } }).protocol
    .transport;
  const send = transport.send.bind(transport);
  let writes = 0;
  transport.send = (frame) => {
    writes++;
    send(frame);
  };
  return { writes: () => writes };
}

/** `count` publishes, each after an await: as RPC answers are, each from its own callback's continuation. */
async function publishApart(nc: NatsConnection, subject: string, count: number, payload = 'x'): Promise<void> {
  for (let i = 0; i < count; i++) {
    nc.publish(subject, `${payload}${i}`);
    await Promise.resolve();
  }
}

const namespace = testNamespace();
let reader: NatsConnection;

beforeAll(async () => {
  reader = await connect({ servers: sharedNatsUrl, name: 'coalesced-reader' });
});

afterAll(async () => {
  await reader.close();
});

describe('coalesced writes', () => {
  it('sends what a turn of the event loop published in one write, where nats-core alone writes each', async () => {
    const plain = await connect({ servers: sharedNatsUrl, name: 'plain-writer' });
    const coalesced = await connect({ servers: sharedNatsUrl, name: 'coalesced-writer' });
    try {
      expect(coalesceWrites(coalesced)).toBe(true);
      const subject = `${namespace}.coalesced.a`;
      const received: string[] = [];
      const sub = reader.subscribe(subject, { callback: (_error, msg) => void received.push(msg.string()) });
      await reader.flush();
      const plainWrites = countWrites(plain);
      const coalescedWrites = countWrites(coalesced);
      await publishApart(plain, subject, 20, 'p');
      await publishApart(coalesced, subject, 20, 'c');
      await plain.flush();
      await coalesced.flush();
      await reader.flush();
      await new Promise((resolve) => setTimeout(resolve, 50));
      sub.unsubscribe();
      expect(plainWrites.writes()).toBeGreaterThanOrEqual(20);
      // The twenty publishes, and the flush's PING, leave together.
      expect(coalescedWrites.writes()).toBeLessThanOrEqual(2);
      // Every message arrives, in the order published.
      expect(received.filter((m) => m.startsWith('c'))).toEqual(Array.from({ length: 20 }, (_, i) => `c${i}`));
      expect(received.filter((m) => m.startsWith('p'))).toHaveLength(20);
    } finally {
      await plain.close();
      await coalesced.close();
    }
  });

  it('writes at once when the queue reaches the client limit, and sends a large burst whole', async () => {
    const writer = await connect({ servers: sharedNatsUrl, name: 'burst-writer' });
    try {
      coalesceWrites(writer);
      const subject = `${namespace}.coalesced.burst`;
      let count = 0;
      const sub = reader.subscribe(subject, { callback: () => void count++ });
      await reader.flush();
      const writes = countWrites(writer);
      const kilobyte = 'k'.repeat(1024);
      // 200 KB in one synchronous run: more than the client's 32 KB limit, so it does not wait for the turn.
      for (let i = 0; i < 200; i++) writer.publish(subject, kilobyte);
      expect(writes.writes()).toBeGreaterThanOrEqual(2);
      await writer.flush();
      await reader.flush();
      await new Promise((resolve) => setTimeout(resolve, 50));
      sub.unsubscribe();
      expect(count).toBe(200);
    } finally {
      await writer.close();
    }
  });

  it('a close right after a publish still sends it', async () => {
    const writer = await connect({ servers: sharedNatsUrl, name: 'closing-writer' });
    coalesceWrites(writer);
    const subject = `${namespace}.coalesced.close`;
    const received: string[] = [];
    const sub = reader.subscribe(subject, { callback: (_error, msg) => void received.push(msg.string()) });
    await reader.flush();
    writer.publish(subject, 'last words');
    await writer.close();
    await reader.flush();
    await new Promise((resolve) => setTimeout(resolve, 50));
    sub.unsubscribe();
    expect(received).toEqual(['last words']);
  });

  it('changes nothing on a client of another shape', () => {
    expect(coalesceWrites({} as NatsConnection)).toBe(false);
    expect(coalesceWrites({ protocol: { flushPending() {} } } as unknown as NatsConnection)).toBe(false);
  });
});
