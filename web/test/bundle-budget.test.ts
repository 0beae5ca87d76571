import { beforeAll, describe, expect, it } from 'vitest';
import { checkBundleBudget, publicBudgetBytes, type BundleBudgetReport } from '../scripts/check-bundle-budget';
import { withWebBuild } from './support/global-setup';

describe('public bundle budget', () => {
  let report: BundleBudgetReport;

  beforeAll(async () => {
    report = await withWebBuild((dist) => checkBundleBudget(dist));
  });

  it("keeps the public pages' JavaScript at or under 150 KB gzipped, without charting or schema code", () => {
    console.info(`public pages' JavaScript: ${report.totalGzipBytes} bytes gzipped of ${publicBudgetBytes}`);
    expect(publicBudgetBytes).toBe(153_600);
    expect(report.chunks.length).toBeGreaterThan(0);
    expect(report.forbiddenChunks).toEqual([]);
    expect(report.chunks.map((chunk) => chunk.file).join(' ')).not.toMatch(/echarts/);
    expect(report.totalGzipBytes).toBeLessThanOrEqual(153_600);
  });
});
