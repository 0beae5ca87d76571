/**
 * `make bench` (`npx tsx bench/run.ts [name ...]`): runs every benchmark of bench/benches.ts, or
 * the ones named, writes `bench/results/<name>.json` for each and prints all their figures as one
 * table (figure, value, baseline measured in the same run, ratio, target, met). BENCH_SIZE=tiny
 * runs each at the size its test uses (seconds, figures meaningless). Exits 1 if a benchmark
 * failed; a target not met is reported, not an error (the machine is shared and noisy).
 */
import { allowRpcInTransactions } from '@qw/platform';
import { benches } from './benches.ts';
import type { BenchSize } from './lib/figures.ts';
import { type BenchResult, formatTable, resultsDir, runBench } from './lib/runner.ts';

// The benchmarks assemble the tests' stack, and importing the testkit switched on its check for
// RPCs inside transactions, which costs every promise an async hook; production runs without it.
allowRpcInTransactions();

const names = process.argv.slice(2).filter((arg) => arg.trim() !== '');
const size: BenchSize = process.env.BENCH_SIZE === 'tiny' ? 'tiny' : 'full';
const unknown = names.filter((name) => !benches.some((bench) => bench.name === name));
if (unknown.length > 0) {
  console.error(`unknown benchmark(s): ${unknown.join(', ')}; known: ${benches.map((b) => b.name).join(', ')}`);
  process.exit(2);
}
const chosen = names.length > 0 ? benches.filter((bench) => names.includes(bench.name)) : benches;
const results: BenchResult[] = [];
for (const bench of chosen) {
  console.log(`${bench.name}: ${bench.title}${size === 'tiny' ? ' (tiny)' : ''} …`);
  const result = await runBench(bench, size, { log: (line) => console.error(line) });
  console.log(`  ${result.status} in ${result.seconds} s`);
  results.push(result);
}
console.log(`\n${formatTable(results)}\n`);
console.log(`results: ${resultsDir}/<name>.json`);
process.exit(results.some((result) => result.status === 'failed') ? 1 : 0);
