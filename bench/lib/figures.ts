/**
 * What every benchmark returns: figures, each beside a baseline measured in the same run where
 * one exists, with its target. `bench/run.ts` prints them as one table and writes
 * `bench/results/<name>.json`. Figures are medians of several rounds with warm-up excluded,
 * unless the figure's name says otherwise (a p99 is a p99 of all samples after warm-up).
 */
export type Comparison = '<' | '<=' | '>' | '>=';

export type BenchFigure = {
  /** What was measured, readable alone: "GET /api/devices (10 devices, 20 connections): requests/s". */
  figure: string;
  value: number;
  /** 'req/s', 'ms', 's', 'samples/s', 'MiB', 'events/s', ... */
  unit: string;
  /** The same thing done the plainest way, measured in this run (bare fastify, `wg setconf`, a bare JetStream publish→consume). */
  baseline?: { label: string; value: number };
  /**
   * What the figure should reach. `on: 'ratio'` compares value / baseline.value (e.g. ≥ 0.1 of a
   * bare route's requests/s); otherwise the value itself.
   */
  target?: { on: 'value' | 'ratio'; comparison: Comparison; limit: number };
  /** Anything a reader needs to trust the figure (sizes, rounds, what was running beside it). */
  note?: string;
};

export type BenchSize = 'full' | 'tiny';

/** A named benchmark; `tiny` runs in seconds so a test can prove it works and writes its result. */
export type Bench = {
  name: string;
  title: string;
  run(size: BenchSize): Promise<BenchFigure[]>;
};

export function ratioOf(figure: BenchFigure): number | null {
  if (!figure.baseline || figure.baseline.value === 0) return null;
  return figure.value / figure.baseline.value;
}

export function targetMet(figure: BenchFigure): boolean | null {
  const target = figure.target;
  if (!target) return null;
  const measured = target.on === 'ratio' ? ratioOf(figure) : figure.value;
  if (measured === null || !Number.isFinite(measured)) return false;
  switch (target.comparison) {
    case '<':
      return measured < target.limit;
    case '<=':
      return measured <= target.limit;
    case '>':
      return measured > target.limit;
    case '>=':
      return measured >= target.limit;
  }
}

/** The median of a list of numbers (several rounds of one figure). */
export function median(values: readonly number[]): number {
  if (values.length === 0) throw new Error('median of nothing');
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1
    ? (sorted[middle] as number)
    : ((sorted[middle - 1] as number) + (sorted[middle] as number)) / 2;
}
