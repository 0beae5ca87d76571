/**
 * Runs benchmarks (each a `Bench`), writes `bench/results/<name>.json` per benchmark and prints
 * every figure in one table. Pure formatting lives here too, so a unit test can read it.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type Bench, type BenchFigure, type BenchSize, median, ratioOf, targetMet } from './figures.ts';

export const resultsDir = join(dirname(fileURLToPath(import.meta.url)), '..', 'results');

/** Thrown by a benchmark that cannot run on this machine (no network namespaces, …): a reason, not a failure. */
export class BenchSkipped extends Error {}

/** A figure as written to the result file: with its ratio and whether its target is met. */
export type FigureResult = BenchFigure & { ratio: number | null; met: boolean | null };

export type BenchResult = {
  name: string;
  title: string;
  size: BenchSize;
  started_at: string;
  seconds: number;
  status: 'ok' | 'skipped' | 'failed';
  /** Why it was skipped or how it failed. */
  reason?: string;
  figures: FigureResult[];
};

export async function runBench(
  bench: Bench,
  size: BenchSize,
  options: { dir?: string; log?: (line: string) => void } = {},
): Promise<BenchResult> {
  const startedAt = new Date();
  const started = performance.now();
  let result: Omit<BenchResult, 'seconds'>;
  const base = { name: bench.name, title: bench.title, size, started_at: startedAt.toISOString() };
  try {
    const figures = await bench.run(size);
    result = {
      ...base,
      status: 'ok',
      figures: figures.map((figure) => ({ ...figure, ratio: ratioOf(figure), met: targetMet(figure) })),
    };
  } catch (error) {
    const skipped = error instanceof BenchSkipped;
    if (!skipped) options.log?.(`${bench.name} failed: ${(error as Error).stack ?? error}`);
    result = { ...base, status: skipped ? 'skipped' : 'failed', reason: (error as Error).message, figures: [] };
  }
  const full: BenchResult = { ...result, seconds: round((performance.now() - started) / 1000, 1) };
  const dir = options.dir ?? resultsDir;
  await mkdir(dir, { recursive: true });
  await writeFile(join(dir, `${bench.name}.json`), `${JSON.stringify(full, null, 2)}\n`);
  return full;
}

function round(value: number, digits: number): number {
  const scale = 10 ** digits;
  return Math.round(value * scale) / scale;
}

/** A number as a person reads it: thousands separated, three significant digits below 100. */
export function formatNumber(value: number): string {
  if (!Number.isFinite(value)) return String(value);
  const abs = Math.abs(value);
  if (abs >= 100) return Math.round(value).toLocaleString('en-US');
  if (abs >= 10) return value.toFixed(1);
  if (abs >= 1) return value.toFixed(2);
  if (abs === 0) return '0';
  return value.toPrecision(2);
}

function formatTarget(figure: BenchFigure): string {
  const target = figure.target;
  if (!target) return '';
  const comparison = target.comparison.replace('<=', '≤').replace('>=', '≥');
  return target.on === 'ratio'
    ? `ratio ${comparison} ${formatNumber(target.limit)}`
    : `${comparison} ${formatNumber(target.limit)} ${figure.unit}`;
}

/** Rows of the table: one per figure, one per benchmark that was skipped or failed. */
export function tableRows(results: readonly BenchResult[]): string[][] {
  const rows: string[][] = [];
  for (const result of results) {
    if (result.status !== 'ok') {
      rows.push([result.name, `${result.status.toUpperCase()}: ${result.reason ?? ''}`, '', '', '', '', '']);
      continue;
    }
    for (const figure of result.figures) {
      const met = figure.met === null ? '' : figure.met ? 'met' : 'NOT MET';
      rows.push([
        result.name,
        figure.figure,
        `${formatNumber(figure.value)} ${figure.unit}`,
        figure.baseline ? `${formatNumber(figure.baseline.value)} (${figure.baseline.label})` : '',
        figure.ratio === null ? '' : formatNumber(figure.ratio),
        formatTarget(figure),
        met,
      ]);
    }
  }
  return rows;
}

/** One plain-text table of every figure: bench, figure, value, baseline, ratio, target, met. */
export function formatTable(results: readonly BenchResult[]): string {
  const header = ['bench', 'figure', 'value', 'baseline (same run)', 'ratio', 'target', 'met'];
  const rows = [header, ...tableRows(results)];
  const widths = header.map((_, column) => Math.max(...rows.map((row) => [...(row[column] ?? '')].length)));
  const line = (row: string[]) =>
    row
      .map((cell, column) => cell.padEnd(widths[column]!))
      .join('  ')
      .trimEnd();
  return [line(header), widths.map((width) => '-'.repeat(width)).join('  '), ...rows.slice(1).map(line)].join('\n');
}

/**
 * Runs `measure` for `warmUp` rounds (not counted) and then `rounds` rounds, and answers the
 * median of each named number over the counted rounds.
 */
export async function medianOfRounds<K extends string>(
  rounds: number,
  warmUp: number,
  measure: (round: number) => Promise<Record<K, number>>,
): Promise<Record<K, number>> {
  for (let round = 0; round < warmUp; round++) await measure(-1 - round);
  const samples: Array<Record<K, number>> = [];
  for (let round = 0; round < rounds; round++) samples.push(await measure(round));
  const keys = Object.keys(samples[0] ?? {}) as K[];
  return Object.fromEntries(keys.map((key) => [key, median(samples.map((sample) => sample[key]))])) as Record<
    K,
    number
  >;
}

/** The p-th percentile of sorted numbers (nearest rank). */
export function percentile(sorted: readonly number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? Number.NaN;
}
