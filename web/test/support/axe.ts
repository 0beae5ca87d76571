import axe from 'axe-core';
import type { Page } from 'playwright-core';

export type AxeViolationSummary = { id: string; impact: string | null | undefined; help: string; targets: string[] };

/** Runs axe-core in the page and returns the serious and critical violations. */
export async function seriousAxeViolations(page: Page): Promise<AxeViolationSummary[]> {
  await page.addScriptTag({ content: axe.source });
  const violations = await page.evaluate(async () => {
    const result = await (window as unknown as { axe: typeof axe }).axe.run(document, { resultTypes: ['violations'] });
    return result.violations.map((violation) => ({
      id: violation.id,
      impact: violation.impact,
      help: violation.help,
      targets: violation.nodes.map((node) => node.target.join(' ')),
    }));
  });
  return violations.filter((violation) => violation.impact === 'serious' || violation.impact === 'critical');
}
