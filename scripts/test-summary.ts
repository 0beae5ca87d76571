/**
 * Prints vitest's totals as one plain line, `N passed, N failed, N skipped`, for CI logs, and
 * before it one line per failure (file, test, the error's first line): a CI log is often read
 * from its end, where the reporter's code frames would otherwise have pushed the reason out.
 */
import { readFileSync } from 'node:fs';
import { relative } from 'node:path';
import { stripVTControlCharacters } from 'node:util';

type Report = {
  numPassedTests: number;
  numFailedTests: number;
  numPendingTests: number;
  numTodoTests: number;
  numFailedTestSuites: number;
  testResults: Array<{
    name: string;
    status: string;
    message?: string;
    assertionResults: Array<{ fullName: string; status: string; duration?: number; failureMessages?: string[] }>;
  }>;
};
const report = JSON.parse(readFileSync(process.argv[2] ?? 'test-results/vitest.json', 'utf8')) as Report;

/** The first line of an error, without colour codes, at most 400 characters. */
const firstLine = (text = '') =>
  (
    stripVTControlCharacters(text)
      .split('\n')
      .find((line) => line.trim() !== '') ?? ''
  ).slice(0, 400);

for (const file of report.testResults) {
  const path = relative(process.cwd(), file.name);
  const failures = file.assertionResults.filter((test) => test.status === 'failed');
  for (const test of failures) {
    const reason = firstLine(test.failureMessages?.[0]);
    // A test that timed out carries only vitest's placeholder here; its run time says the rest.
    const said =
      reason === 'Error: STACK_TRACE_ERROR' ? `timed out after ${Math.round(test.duration ?? 0)} ms` : reason;
    console.log(`failed: ${path} > ${test.fullName}: ${said}`);
  }
  if (file.status === 'failed' && failures.length === 0) console.log(`failed: ${path}: ${firstLine(file.message)}`);
}
// A file that fails to load has no failed test of its own: count it then.
const failed = report.numFailedTests > 0 ? report.numFailedTests : report.numFailedTestSuites;
console.log(
  `${report.numPassedTests} passed, ${failed} failed, ${report.numPendingTests + report.numTodoTests} skipped`,
);
process.exit(failed > 0 ? 1 : 0);
