import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import axe from 'axe-core';
import type { Page } from 'playwright-core';

export type AxeViolationSummary = { id: string; impact: string | null | undefined; help: string; targets: string[] };

let served: Promise<string> | undefined;

/**
 * axe-core's URL on a server of this test process's own, cacheable for a day. A page loading it
 * from there is given the code Chromium compiled the last time this browser context loaded it
 * (about 50 ms); the source injected inline was parsed and compiled again on every page (0.1 s on
 * a quiet machine, 0.4–0.6 s on a loaded run, over two hundred times a run).
 */
function axeUrl(): Promise<string> {
  served ??= new Promise((resolve, reject) => {
    const server = createServer((_request, response) => {
      response.writeHead(200, { 'content-type': 'text/javascript', 'cache-control': 'public, max-age=86400' });
      response.end(axe.source);
    });
    server.unref();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () =>
      resolve(`http://127.0.0.1:${(server.address() as AddressInfo).port}/axe-${axe.version}.js`),
    );
  });
  return served;
}

/** Puts axe-core in the page: from its URL, or inline where the page may not load it (a test's own routes, say). */
async function injectAxe(page: Page): Promise<void> {
  try {
    await page.addScriptTag({ url: await axeUrl() });
  } catch {
    await page.addScriptTag({ content: axe.source });
  }
}

/** Runs axe-core in the page and returns the serious and critical violations. */
export async function seriousAxeViolations(page: Page): Promise<AxeViolationSummary[]> {
  await injectAxe(page);
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
