/** Prints vitest's totals as one plain line, `N passed, N failed, N skipped`, for CI logs. */
import { readFileSync } from 'node:fs';

type Report = {
  numPassedTests: number;
  numFailedTests: number;
  numPendingTests: number;
  numTodoTests: number;
  numFailedTestSuites: number;
};
const report = JSON.parse(readFileSync(process.argv[2] ?? 'test-results/vitest.json', 'utf8')) as Report;
// A file that fails to load has no failed test of its own: count it then.
const failed = report.numFailedTests > 0 ? report.numFailedTests : report.numFailedTestSuites;
console.log(
  `${report.numPassedTests} passed, ${failed} failed, ${report.numPendingTests + report.numTodoTests} skipped`,
);
process.exit(failed > 0 ? 1 : 0);
