/**
 * A node's peer sample goes out in pages: NATS refuses a message over its max_payload (1 MB by
 * default), and a peer's entry takes about 170 bytes, so one message for 10,000 peers (about
 * 1.7 MB) would never arrive. Each page carries the same sampledAt; telemetry takes every peer
 * on its own, so pages of one sample add up to the whole sample. An empty interface still sends
 * one (empty) page, as before.
 */
export const peersPerSamplePage = 2_000;

export function samplePages<T>(peers: readonly T[], size: number = peersPerSamplePage): T[][] {
  if (!Number.isInteger(size) || size < 1) throw new RangeError(`page size must be a positive integer, got ${size}`);
  if (peers.length === 0) return [[]];
  const pages: T[][] = [];
  for (let start = 0; start < peers.length; start += size) pages.push(peers.slice(start, start + size));
  return pages;
}
