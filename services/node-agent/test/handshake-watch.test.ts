import { describe, expect, it } from 'vitest';
import { connectedWindowSeconds } from '@qw/contracts';
import {
  HandshakeWatch,
  handshakeChangesPerEvent,
  newlyConnected,
  parseLatestHandshakes,
  type HandshakeChange,
} from '../src/handshake-watch.ts';

const key = (c: string) => `${c.repeat(43)}=`;
const now = 1_800_000_000;

describe('reading `wg show <if> latest-handshakes`', () => {
  it('reads a key and unix seconds per line, 0 for never, and skips anything else', () => {
    const output = `${key('a')}\t${now - 5}\n${key('b')}\t0\nnot a line\n${key('c')}\tsoon\n\n`;
    expect(parseLatestHandshakes(output)).toEqual(
      new Map([
        [key('a'), now - 5],
        [key('b'), 0],
      ]),
    );
  });
});

describe('which peers have just connected', () => {
  const stale = now - connectedWindowSeconds;

  it('a first handshake, or a new one after a stale one, is a change', () => {
    const previous = new Map([
      [key('a'), 0],
      [key('b'), stale - 10],
    ]);
    const current = new Map([
      [key('a'), now - 1],
      [key('b'), now],
      [key('c'), now - 2],
    ]);
    expect(newlyConnected(previous, current, now)).toEqual([
      { publicKey: key('a'), latestHandshake: now - 1 },
      { publicKey: key('b'), latestHandshake: now },
      // A peer the last reading did not have (added since) with a handshake already.
      { publicKey: key('c'), latestHandshake: now - 2 },
    ]);
  });

  it('a renewal inside the window, a peer that never connected and a stale handshake are not', () => {
    const previous = new Map([
      [key('a'), now - 100],
      [key('b'), 0],
      [key('c'), stale - 50],
    ]);
    const current = new Map([
      [key('a'), now - 1],
      [key('b'), 0],
      [key('c'), stale - 50],
    ]);
    expect(newlyConnected(previous, current, now)).toEqual([]);
  });
});

describe('the watch', () => {
  function watchOf(readings: Array<Map<string, number>>, failPublishes = 0) {
    const published: HandshakeChange[][] = [];
    let failures = failPublishes;
    const watch = new HandshakeWatch(
      async () => readings.shift() ?? new Map(),
      async (changes) => {
        if (failures-- > 0) throw new Error('bus down');
        published.push(changes);
      },
      () => now,
    );
    return { watch, published };
  }

  it('publishes nothing while nothing changes, however many times it reads', async () => {
    const steady = new Map([
      [key('a'), now - 30],
      [key('b'), 0],
    ]);
    const { watch, published } = watchOf(Array.from({ length: 10 }, () => new Map(steady)));
    expect(await watch.tick()).toBe(1); // the first reading: a is connected as the agent starts
    for (let i = 0; i < 9; i++) expect(await watch.tick()).toBe(0);
    expect(published).toEqual([[{ publicKey: key('a'), latestHandshake: now - 30 }]]);
  });

  it('publishes a peer once, when its first handshake appears', async () => {
    const { watch, published } = watchOf([
      new Map([[key('a'), 0]]),
      new Map([[key('a'), 0]]),
      new Map([[key('a'), now - 1]]),
      new Map([[key('a'), now - 1]]),
    ]);
    for (let i = 0; i < 4; i++) await watch.tick();
    expect(published).toEqual([[{ publicKey: key('a'), latestHandshake: now - 1 }]]);
  });

  it('sends a change again on the next reading when publishing it failed', async () => {
    const { watch, published } = watchOf(
      [new Map([[key('a'), 0]]), new Map([[key('a'), now - 1]]), new Map([[key('a'), now - 1]])],
      1,
    );
    await watch.tick();
    await expect(watch.tick()).rejects.toThrow('bus down');
    await watch.tick();
    expect(published).toEqual([[{ publicKey: key('a'), latestHandshake: now - 1 }]]);
  });

  it('splits many changes into events of the contract size', async () => {
    const many = new Map(
      Array.from({ length: handshakeChangesPerEvent + 5 }, (_, i) => [`${i.toString(36).padStart(43, 'x')}=`, now - 1]),
    );
    const { watch, published } = watchOf([many]);
    expect(await watch.tick()).toBe(handshakeChangesPerEvent + 5);
    expect(published.map((event) => event.length)).toEqual([handshakeChangesPerEvent, 5]);
  });
});
