/**
 * A server's last 24 hours for its card on the console (issue #26): host samples (about one every
 * 15 s) folded into 5-minute buckets. CPU, load and memory are means over the bucket; peers the
 * most seen; traffic a rate from the interface's byte counters between consecutive samples, each
 * step counted in the bucket it ends in. A step across a counter reset (the interface came up
 * again) or a gap longer than `maxStepSeconds` (the agent was away) says nothing and is left out.
 */
export type HostSampleRow = {
  ts: Date;
  cpu: number;
  load1: number;
  mem_used: number;
  mem_total: number;
  net_rx_bytes: number | null;
  net_tx_bytes: number | null;
  peers: number | null;
};

export type HistoryBucket = {
  at: string;
  cpu: number | null;
  load1: number | null;
  memory: number | null;
  rx_rate: number | null;
  tx_rate: number | null;
  peers: number | null;
};

export type HistoryWindow = { from: Date; to: Date; bucketSeconds: number; buckets: number };

export const historyHours = 24;
export const historyBucketSeconds = 300;
/** Two samples further apart than this are not one step of the counters. */
export const maxStepSeconds = 600;

/** The window ending at the end of the bucket `now` falls in: 288 buckets of 5 minutes. */
export function historyWindow(now: Date, bucketSeconds = historyBucketSeconds, hours = historyHours): HistoryWindow {
  const bucketMs = bucketSeconds * 1000;
  const to = new Date(Math.ceil(now.getTime() / bucketMs) * bucketMs);
  const buckets = Math.round((hours * 3600) / bucketSeconds);
  return { from: new Date(to.getTime() - buckets * bucketMs), to, bucketSeconds, buckets };
}

type Sums = {
  samples: number;
  cpu: number;
  load1: number;
  memory: number;
  memorySamples: number;
  peers: number | null;
  rxBytes: number;
  txBytes: number;
  stepSeconds: number;
};

/** Folds samples (any order; ones outside the window only serve as the start of a step) into buckets. */
export function foldHistory(
  rows: readonly HostSampleRow[],
  window: HistoryWindow,
): { buckets: HistoryBucket[]; reportedShare: number } {
  const bucketMs = window.bucketSeconds * 1000;
  const start = window.from.getTime();
  const sums: Sums[] = Array.from({ length: window.buckets }, () => ({
    samples: 0,
    cpu: 0,
    load1: 0,
    memory: 0,
    memorySamples: 0,
    peers: null,
    rxBytes: 0,
    txBytes: 0,
    stepSeconds: 0,
  }));
  const sorted = [...rows].sort((a, b) => a.ts.getTime() - b.ts.getTime());
  let previous: HostSampleRow | undefined;
  for (const row of sorted) {
    const index = Math.floor((row.ts.getTime() - start) / bucketMs);
    const bucket = index >= 0 && index < window.buckets ? sums[index] : undefined;
    if (bucket) {
      bucket.samples += 1;
      bucket.cpu += row.cpu;
      bucket.load1 += row.load1;
      if (row.mem_total > 0) {
        bucket.memory += (row.mem_used / row.mem_total) * 100;
        bucket.memorySamples += 1;
      }
      if (row.peers !== null) bucket.peers = Math.max(bucket.peers ?? 0, row.peers);
      const step = previous ? counterStep(previous, row) : null;
      if (step) {
        bucket.rxBytes += step.rx;
        bucket.txBytes += step.tx;
        bucket.stepSeconds += step.seconds;
      }
    }
    previous = row;
  }
  const buckets = sums.map((bucket, index) => ({
    at: new Date(start + index * bucketMs).toISOString(),
    cpu: bucket.samples > 0 ? bucket.cpu / bucket.samples : null,
    load1: bucket.samples > 0 ? bucket.load1 / bucket.samples : null,
    memory: bucket.memorySamples > 0 ? bucket.memory / bucket.memorySamples : null,
    rx_rate: bucket.stepSeconds > 0 ? bucket.rxBytes / bucket.stepSeconds : null,
    tx_rate: bucket.stepSeconds > 0 ? bucket.txBytes / bucket.stepSeconds : null,
    peers: bucket.peers,
  }));
  const reported = sums.filter((bucket) => bucket.samples > 0).length;
  return { buckets, reportedShare: window.buckets > 0 ? reported / window.buckets : 0 };
}

function counterStep(before: HostSampleRow, after: HostSampleRow): { rx: number; tx: number; seconds: number } | null {
  const seconds = (after.ts.getTime() - before.ts.getTime()) / 1000;
  if (seconds <= 0 || seconds > maxStepSeconds) return null;
  if (
    before.net_rx_bytes === null ||
    before.net_tx_bytes === null ||
    after.net_rx_bytes === null ||
    after.net_tx_bytes === null
  )
    return null;
  const rx = after.net_rx_bytes - before.net_rx_bytes;
  const tx = after.net_tx_bytes - before.net_tx_bytes;
  if (rx < 0 || tx < 0) return null;
  return { rx, tx, seconds };
}
