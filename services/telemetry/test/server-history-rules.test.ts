import { describe, expect, it } from 'vitest';
import { foldHistory, historyWindow, type HostSampleRow } from '../src/admin/server-history-rules.ts';
import { parseLinkCounters } from '../../node-agent/src/wg-host.ts';

const sample = (at: number, fields: Partial<HostSampleRow> = {}): HostSampleRow => ({
  ts: new Date(at),
  cpu: 10,
  load1: 1,
  mem_used: 1,
  mem_total: 4,
  net_rx_bytes: null,
  net_tx_bytes: null,
  peers: null,
  ...fields,
});

describe("a server's 24 h history", () => {
  it('ends at the end of the current 5-minute bucket and holds 288 of them', () => {
    const window = historyWindow(new Date('2026-11-25T10:02:30Z'));
    expect(window.to.toISOString()).toBe('2026-11-25T10:05:00.000Z');
    expect(window.from.toISOString()).toBe('2026-11-24T10:05:00.000Z');
    expect(window.buckets).toBe(288);
    expect(historyWindow(new Date('2026-11-25T10:05:00Z')).to.toISOString()).toBe('2026-11-25T10:05:00.000Z');
  });

  it('counts a step of the counters in the bucket it ends in, with a step from before the window', () => {
    const window = historyWindow(new Date('2026-11-25T10:02:30Z'));
    const start = window.from.getTime();
    const { buckets } = foldHistory(
      [
        sample(start - 10_000, { net_rx_bytes: 0, net_tx_bytes: 0 }),
        sample(start + 10_000, { net_rx_bytes: 2_000, net_tx_bytes: 4_000, peers: 3 }),
        sample(start + 299_000, { net_rx_bytes: 3_000, net_tx_bytes: 4_000, peers: 2 }),
        sample(start + 301_000, { net_rx_bytes: 3_200, net_tx_bytes: 4_400, peers: 1 }),
      ],
      window,
    );
    // 3,000 bytes received over the 309 s of the two steps ending in the first bucket (the first from before it).
    expect(buckets[0]?.rx_rate).toBeCloseTo(3_000 / 309, 9);
    expect(buckets[0]?.tx_rate).toBeCloseTo(4_000 / 309, 9);
    expect(buckets[0]?.peers).toBe(3);
    expect(buckets[1]).toMatchObject({ rx_rate: 100, tx_rate: 200, peers: 1 });
    expect(buckets[0]?.memory).toBe(25);
  });

  it('leaves out steps across a counter reset, a long gap or a sample without counters', () => {
    const window = historyWindow(new Date('2026-11-25T10:02:30Z'));
    const start = window.from.getTime();
    const { buckets, reportedShare } = foldHistory(
      [
        sample(start + 1_000, { net_rx_bytes: 5_000, net_tx_bytes: 5_000 }),
        sample(start + 16_000, { net_rx_bytes: 10, net_tx_bytes: 10 }),
        sample(start + 900_000, { net_rx_bytes: 20, net_tx_bytes: 20 }),
        sample(start + 915_000),
        sample(start + 930_000, { net_rx_bytes: 50, net_tx_bytes: 50 }),
      ],
      window,
    );
    expect(buckets[0]).toMatchObject({ rx_rate: null, tx_rate: null, cpu: 10 });
    expect(buckets[3]).toMatchObject({ rx_rate: null, tx_rate: null });
    expect(buckets[1]).toMatchObject({ cpu: null, load1: null, memory: null, peers: null });
    expect(reportedShare).toBeCloseTo(2 / 288, 9);
  });

  it('reads the byte counters of `ip -j -s link`, and nothing from an answer without them', () => {
    const answer = JSON.stringify([{ ifname: 'wg0', stats64: { rx: { bytes: 12 }, tx: { bytes: 34 } } }]);
    expect(parseLinkCounters(answer)).toEqual({ rx: 12, tx: 34 });
    expect(parseLinkCounters('[{"ifname":"wg0"}]')).toBeNull();
    expect(parseLinkCounters('not json')).toBeNull();
  });
});
