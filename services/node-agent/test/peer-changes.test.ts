import { describe, expect, it } from 'vitest';
import { peerChanges } from '../src/agent.ts';
import { PeerChangeOrder } from '../src/peer-order.ts';

const key = (c: string) => `${c.repeat(43)}=`;

describe('what a peer change asks of the interface', () => {
  it('adds a new peer with its addresses', () => {
    expect(
      peerChanges({ change: 'set', publicKey: key('a'), allowedIps: ['10.64.0.2/32', 'fd7a::2/128'], replaces: null }),
    ).toEqual([{ publicKey: key('a'), allowedIps: ['10.64.0.2/32', 'fd7a::2/128'] }]);
  });

  it('takes the old key off in the same step as the new one arrives', () => {
    expect(
      peerChanges({ change: 'set', publicKey: key('b'), allowedIps: ['10.64.0.2/32'], replaces: key('a') }),
    ).toEqual([
      { publicKey: key('a'), remove: true },
      { publicKey: key('b'), allowedIps: ['10.64.0.2/32'] },
    ]);
    // A "replacement" by the same key is no removal.
    expect(
      peerChanges({ change: 'set', publicKey: key('b'), allowedIps: ['10.64.0.2/32'], replaces: key('b') }),
    ).toHaveLength(1);
  });

  it('removes a peer', () => {
    expect(peerChanges({ change: 'remove', publicKey: key('c') })).toEqual([{ publicKey: key('c'), remove: true }]);
  });
});

describe('peer changes delivered again after newer ones', () => {
  const set = (c: string) => ({ publicKey: key(c), allowedIps: ['10.64.0.2/32'] });
  const remove = (c: string) => ({ publicKey: key(c), remove: true as const });

  it('drops an add redelivered after the removal that followed it', () => {
    const order = new PeerChangeOrder();
    order.applied([set('a')], 10);
    order.applied([remove('a')], 14);
    expect(order.current([set('a')], 10)).toEqual([]);
  });

  it('applies a redelivery at the same sequence again, and changes of other keys', () => {
    const order = new PeerChangeOrder();
    order.applied([set('a')], 10);
    expect(order.current([set('a')], 10)).toEqual([set('a')]);
    expect(order.current([set('b')], 3)).toEqual([set('b')]);
  });

  it('keeps, of a replacement, only what is still current', () => {
    const order = new PeerChangeOrder();
    // b replaced a at 20, and b was removed at 25: the replacement delivered again changes nothing.
    order.applied([remove('a'), set('b')], 20);
    order.applied([remove('b')], 25);
    expect(order.current([remove('a'), set('b')], 20)).toEqual([remove('a')]);
    // An older change recorded late never moves a key's sequence back.
    order.applied([set('b')], 20);
    expect(order.current([set('b')], 24)).toEqual([]);
  });

  it('forgets keys not changed for ten minutes', () => {
    let now = 0;
    const order = new PeerChangeOrder(() => now);
    order.applied([remove('a')], 14);
    now = 9 * 60_000;
    order.applied([remove('b')], 15);
    now = 10 * 60_000 + 1;
    order.forgetOld();
    expect(order.size).toBe(1);
    expect(order.current([set('a')], 10)).toEqual([set('a')]);
    expect(order.current([set('b')], 10)).toEqual([]);
  });
});
