import { describe, expect, it } from 'vitest';
import { peerChanges } from '../src/agent.ts';

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
