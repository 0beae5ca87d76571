import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { foldSamples, type ResolvedSample, type StoredLatest } from '../src/samples/peer-samples.ts';

/**
 * The rule a batch of samples follows (telemetry takes the samples that arrived together in one
 * transaction): the same as taking them one at a time, with only each device's newest row written.
 */
const nodeId = randomUUID();
const [laptop, phone] = [randomUUID(), randomUUID()];
const hour = Date.UTC(2027, 0, 5, 10);
const peer = (deviceId: string, rx: number, tx: number, handshake = 0) => ({
  deviceId,
  rxBytes: rx,
  txBytes: tx,
  latestHandshake: handshake,
  maskedEndpoint: '203.0.113.x',
  latencyMs: null,
});
const sample = (at: number, peers: ResolvedSample['peers']): ResolvedSample => ({ nodeId, sampledAt: at, peers });

/** Each sample alone, the state written back between them: what a batch must equal. */
function oneAtATime(stored: Map<string, StoredLatest>, samples: ResolvedSample[]) {
  const state = new Map(stored);
  const hours = new Map<number, { rx: number; tx: number }>();
  let counted = 0;
  const handshakes: string[] = [];
  for (const one of samples) {
    const folded = foldSamples(state, [one]);
    counted += folded.counted;
    for (const h of folded.hours) {
      const sum = hours.get(h.hour) ?? { rx: 0, tx: 0 };
      hours.set(h.hour, { rx: sum.rx + h.rxBytes, tx: sum.tx + h.txBytes });
    }
    for (const told of folded.handshakes) handshakes.push(...told.devices.map((d) => d.deviceId));
    for (const row of folded.latest)
      state.set(row.deviceId, {
        ts: row.ts,
        rxBytes: row.rxBytes,
        txBytes: row.txBytes,
        latestHandshake: row.latestHandshake,
        nodeId: row.nodeId,
        hour: row.hour,
        hourRxBytes: row.hourRxBytes,
        hourTxBytes: row.hourTxBytes,
      });
  }
  return { state, hours, counted, handshakes };
}

describe('a batch of peer samples', () => {
  it('follows each device from sample to sample: the first counts all, a reset counts all it shows', () => {
    const samples = [
      sample(hour + 10_000, [peer(laptop, 1000, 100), peer(phone, 50, 5)]),
      sample(hour + 20_000, [peer(laptop, 1500, 300), peer(phone, 80, 5)]),
      // The node restarted: the laptop's counters start again.
      sample(hour + 30_000, [peer(laptop, 200, 20), peer(phone, 90, 6)]),
    ];
    const folded = foldSamples(new Map(), samples);
    expect(folded.counted).toBe(6);
    expect(folded.hours).toEqual([{ hour, rxBytes: 1500 + 200 + 90, txBytes: 300 + 20 + 6 }]);
    // One latest row per device: the newest sample, with the bytes of its hour so far (the hour has
    // not ended: nothing for the ended hours' table).
    expect(folded.latest).toHaveLength(2);
    expect(folded.latest.find((row) => row.deviceId === laptop)).toMatchObject({
      ts: hour + 30_000,
      rxBytes: 200,
      hour,
      hourRxBytes: 1700,
      hourTxBytes: 320,
    });
    expect(folded.deviceHours).toEqual([]);
    const alone = oneAtATime(new Map(), samples);
    expect(alone.counted).toBe(folded.counted);
    expect(alone.hours.get(hour)).toEqual({ rx: 1790, tx: 326 });
  });

  it('counts from what was stored, splits bytes by the hour each sample fell in, skips an older sample', () => {
    const stored = new Map<string, StoredLatest>([
      [
        laptop,
        {
          ts: hour - 10_000,
          rxBytes: 900,
          txBytes: 90,
          latestHandshake: null,
          hour: hour - 3_600_000,
          hourRxBytes: 4000,
          hourTxBytes: 400,
        },
      ],
      [phone, { ts: hour + 50_000, rxBytes: 10, txBytes: 1, latestHandshake: null }],
    ]);
    const folded = foldSamples(stored, [
      sample(hour - 5_000, [peer(laptop, 1000, 100)]),
      sample(hour + 5_000, [peer(laptop, 1600, 150), peer(phone, 999, 999)]),
    ]);
    // The phone's stored row is newer than the sample: it is not counted, nor its row written.
    expect(folded.counted).toBe(2);
    expect(folded.latest.map((row) => row.deviceId)).toEqual([laptop]);
    expect(folded.hours).toEqual([
      { hour: hour - 3_600_000, rxBytes: 100, txBytes: 10 },
      { hour, rxBytes: 600, txBytes: 50 },
    ]);
    // The laptop's stored hour took the first sample's bytes, then ended when the next hour's
    // sample came; the new hour holds what moved since.
    expect(folded.deviceHours).toEqual([{ deviceId: laptop, hour: hour - 3_600_000, rxBytes: 4100, txBytes: 410 }]);
    expect(folded.latest[0]).toMatchObject({ hour, hourRxBytes: 600, hourTxBytes: 50 });
    // The same one sample at a time.
    const alone = oneAtATime(stored, [
      sample(hour - 5_000, [peer(laptop, 1000, 100)]),
      sample(hour + 5_000, [peer(laptop, 1600, 150)]),
    ]);
    expect(alone.state.get(laptop)).toMatchObject({ hour, hourRxBytes: 600, hourTxBytes: 50 });
  });

  it('tells provisioning a handshake newer than the latest known, once', () => {
    const at = Math.floor(hour / 1000);
    const stored = new Map<string, StoredLatest>([
      [laptop, { ts: hour - 10_000, rxBytes: 0, txBytes: 0, latestHandshake: (at - 200) * 1000 }],
    ]);
    const samples = [
      sample(hour, [peer(laptop, 1, 1, at - 200), peer(phone, 1, 1, 0)]),
      sample(hour + 10_000, [peer(laptop, 2, 2, at + 5), peer(phone, 2, 2, at + 6)]),
      sample(hour + 20_000, [peer(laptop, 3, 3, at + 5), peer(phone, 3, 3, at + 6)]),
    ];
    const folded = foldSamples(stored, samples);
    expect(folded.handshakes).toEqual([
      {
        nodeId,
        devices: [
          { deviceId: laptop, latestHandshake: new Date((at + 5) * 1000).toISOString() },
          { deviceId: phone, latestHandshake: new Date((at + 6) * 1000).toISOString() },
        ],
      },
    ]);
    expect(oneAtATime(stored, samples).handshakes).toEqual([laptop, phone]);
    expect(folded.latest.find((row) => row.deviceId === phone)?.latestHandshake).toBe((at + 6) * 1000);
  });

  it('tells a handshake as new as the latest known when it comes through another node than that one', () => {
    const at = Math.floor(hour / 1000);
    const oldNode = randomUUID();
    const stored = new Map<string, StoredLatest>([
      // The laptop's last handshake came through the node it left; the phone's through this one.
      [laptop, { ts: hour - 10_000, rxBytes: 0, txBytes: 0, latestHandshake: at * 1000, nodeId: oldNode }],
      [phone, { ts: hour - 10_000, rxBytes: 0, txBytes: 0, latestHandshake: at * 1000, nodeId }],
    ]);
    const samples = [
      sample(hour, [peer(laptop, 1, 1, at), peer(phone, 1, 1, at)]),
      sample(hour + 10_000, [peer(laptop, 2, 2, at), peer(phone, 2, 2, at)]),
    ];
    const folded = foldSamples(stored, samples);
    expect(folded.handshakes).toEqual([
      { nodeId, devices: [{ deviceId: laptop, latestHandshake: new Date(at * 1000).toISOString() }] },
    ]);
    expect(oneAtATime(stored, samples).handshakes).toEqual([laptop]);
    expect(folded.latest.find((row) => row.deviceId === laptop)?.nodeId).toBe(nodeId);
  });
});
