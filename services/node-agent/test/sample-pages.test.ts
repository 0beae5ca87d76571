import { describe, expect, it } from 'vitest';
import { createEnvelope } from '@qw/platform/bus';
import { peersSampled } from '@qw/contracts';
import { generateKeyPair } from '@qw/wireguard';
import { peersPerSamplePage, samplePages } from '../src/sample-pages.ts';

/** NATS's default max_payload. */
const maxPayload = 1024 * 1024;

describe("a node's peer sample in pages", () => {
  it('keeps every message of a 10,000-peer sample under NATS’s 1 MB, with every peer once and in order', () => {
    const key = generateKeyPair().publicKey;
    const peers = Array.from({ length: 10_000 }, (_, i) => ({
      publicKey: `${key.slice(0, 38)}${String(i).padStart(5, '0')}=`,
      latestHandshake: 1_764_000_000 + i,
      rxBytes: 123_456_789_012 + i,
      txBytes: 987_654_321_098 + i,
      maskedEndpoint: '203.0.113.0/24',
      latencyMs: 12.5,
    }));
    const whole = JSON.stringify(createEnvelope(peersSampled, { sampledAt: new Date().toISOString(), peers }));
    // Why pages are needed at all: the sample in one message would be refused.
    expect(Buffer.byteLength(whole)).toBeGreaterThan(maxPayload);
    const pages = samplePages(peers);
    expect(pages).toHaveLength(Math.ceil(10_000 / peersPerSamplePage));
    for (const page of pages) {
      const message = JSON.stringify(
        createEnvelope(peersSampled, { sampledAt: new Date().toISOString(), peers: page }),
      );
      expect(Buffer.byteLength(message)).toBeLessThan(maxPayload / 2);
    }
    expect(pages.flat()).toEqual(peers);
  });

  it('sends one empty page for an empty interface, and refuses a page size that is not a positive integer', () => {
    expect(samplePages([])).toEqual([[]]);
    expect(samplePages([1, 2, 3], 2)).toEqual([[1, 2], [3]]);
    expect(() => samplePages([1], 0)).toThrow(RangeError);
    expect(() => samplePages([1], 1.5)).toThrow(RangeError);
  });
});
