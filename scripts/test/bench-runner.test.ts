/**
 * `make bench`: the table and result files (pure), and every cheap benchmark run at size 'tiny'
 * (figures meaningless at that size; what is checked is that it runs and writes a sane result).
 */
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { benches, tinyExcluded } from '../../bench/benches.ts';
import { type Bench, type BenchFigure, targetMet } from '../../bench/lib/figures.ts';
import {
  BenchSkipped,
  type BenchResult,
  formatNumber,
  formatTable,
  medianOfRounds,
  runBench,
} from '../../bench/lib/runner.ts';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'qw-bench-results-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

const apiFigure: BenchFigure = {
  figure: 'GET /api/devices: requests/s',
  value: 1500,
  unit: 'req/s',
  baseline: { label: 'bare fastify route', value: 20_000 },
  target: { on: 'ratio', comparison: '>=', limit: 0.1 },
};

async function readResult(name: string): Promise<BenchResult> {
  return JSON.parse(await readFile(join(dir, `${name}.json`), 'utf8'));
}

function expectSane(result: BenchResult, bench: Bench) {
  expect(result.name).toBe(bench.name);
  expect(result.size).toBe('tiny');
  expect(Number.isNaN(Date.parse(result.started_at))).toBe(false);
  expect(result.seconds).toBeGreaterThan(0);
  expect(result.figures.length).toBeGreaterThan(0);
  for (const figure of result.figures) {
    expect(figure.figure.length).toBeGreaterThan(0);
    expect(figure.unit.length).toBeGreaterThan(0);
    expect(Number.isFinite(figure.value), `${figure.figure}: ${figure.value}`).toBe(true);
    if (figure.baseline) {
      expect(Number.isFinite(figure.baseline.value), `${figure.figure} baseline`).toBe(true);
      expect(figure.ratio).toBeCloseTo(figure.value / figure.baseline.value);
    } else expect(figure.ratio).toBeNull();
    if (figure.target) expect(typeof figure.met).toBe('boolean');
    else expect(figure.met).toBeNull();
  }
}

describe('the table', () => {
  it('compares a ratio target with value / baseline and prints every column', async () => {
    expect(targetMet(apiFigure)).toBe(false);
    expect(targetMet({ ...apiFigure, value: 2000 })).toBe(true);
    const result = await runBench({ name: 'fake', title: 'a fake', run: async () => [apiFigure] }, 'tiny', { dir });
    expect(result.figures[0]).toMatchObject({ ratio: 0.075, met: false });
    expect(await readResult('fake')).toEqual(result);
    const table = formatTable([result]).split('\n');
    expect(table[0]).toMatch(/^bench\s+figure\s+value\s+baseline \(same run\)\s+ratio\s+target\s+met$/);
    expect(table[2]).toContain('GET /api/devices: requests/s');
    expect(table[2]).toContain('1,500 req/s');
    expect(table[2]).toContain('20,000 (bare fastify route)');
    expect(table[2]).toContain('ratio ≥ 0.10');
    expect(table[2]).toMatch(/NOT MET$/);
  });

  it('records a skipped and a failed benchmark with their reasons and no figures', async () => {
    const skipped = await runBench(
      {
        name: 'skips',
        title: 'skips',
        run: async () => {
          throw new BenchSkipped('no network namespaces');
        },
      },
      'tiny',
      { dir },
    );
    const failed = await runBench(
      {
        name: 'fails',
        title: 'fails',
        run: async () => {
          throw new Error('boom');
        },
      },
      'tiny',
      { dir },
    );
    expect(await readResult('skips')).toMatchObject({
      status: 'skipped',
      reason: 'no network namespaces',
      figures: [],
    });
    expect(await readResult('fails')).toMatchObject({ status: 'failed', reason: 'boom', figures: [] });
    const table = formatTable([skipped, failed]);
    expect(table).toContain('SKIPPED: no network namespaces');
    expect(table).toContain('FAILED: boom');
  });

  it('takes medians of the counted rounds, warm-up left out', async () => {
    const seen: number[] = [];
    const values = [1000, 5, 1, 3];
    const median = await medianOfRounds(3, 1, async (round) => {
      seen.push(round);
      return { ms: values.shift()! };
    });
    expect(seen).toEqual([-1, 0, 1, 2]);
    expect(median).toEqual({ ms: 3 });
    expect(formatNumber(19_370.4)).toBe('19,370');
    expect(formatNumber(4.256)).toBe('4.26');
  });
});

describe('every cheap benchmark at size tiny', () => {
  const names = benches.map((bench) => bench.name);
  it('names each benchmark once, and excludes only benchmarks that exist', () => {
    expect(new Set(names).size).toBe(names.length);
    for (const name of Object.keys(tinyExcluded)) expect(names).toContain(name);
  });

  for (const bench of benches.filter((b) => !(b.name in tinyExcluded))) {
    it(`${bench.name} runs and writes bench/results/${bench.name}.json`, { timeout: 120_000 }, async () => {
      const result = await runBench(bench, 'tiny', { dir });
      expect(result.reason).toBeUndefined();
      expect(result.status).toBe('ok');
      expect(await readResult(bench.name)).toEqual(result);
      expectSane(result, bench);
    });
  }
});
