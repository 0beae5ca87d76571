import type { Browser, BrowserContext, Download, Page } from 'playwright-core';
import { tunnelCheckIpv4 } from '@qw/contracts';
import { afterAll, beforeAll } from 'vitest';
import { launchBrowser } from './chromium';
import { type Site, startSite } from './site';

export { chromiumPath, launchBrowser } from './chromium';

export type PageOptions = { width?: number; height?: number; colorScheme?: 'light' | 'dark' };

/** A page in its own context (own cookies and storage), sized like a phone (360) or a laptop (1280). */
export async function openPage(
  browser: Browser,
  options: PageOptions = {},
): Promise<{ context: BrowserContext; page: Page }> {
  const width = options.width ?? 1280;
  const context = await browser.newContext({
    viewport: { width, height: options.height ?? (width < 600 ? 740 : 800) },
    colorScheme: options.colorScheme ?? 'light',
    reducedMotion: 'reduce',
    // Lets the tests inject axe-core even where the site sends a Content-Security-Policy.
    bypassCSP: true,
  });
  // The Overview asks the node's check address (issue #25): no test sends traffic there. A test
  // that wants an answer routes it on its page, which comes before this.
  await context.route(
    (url) => url.hostname === tunnelCheckIpv4,
    (route) => route.abort('addressunreachable'),
  );
  const page = await context.newPage();
  return { context, page };
}

/**
 * What a download holds, read through Playwright's stream: the run shares one Chromium that each
 * file connects to, and a connected client cannot ask for the downloaded file's path.
 */
export async function downloadedText(download: Download): Promise<string> {
  const stream = await download.createReadStream();
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(Buffer.from(chunk as Uint8Array));
  return Buffer.concat(chunks).toString('utf8');
}

/** The page's next alert, confirm or prompt: accepted, and answered as its type and text. */
export function nextDialog(page: Page): Promise<{ type: string; message: string }> {
  return new Promise((resolve) => {
    page.once('dialog', (dialog) => {
      resolve({ type: dialog.type(), message: dialog.message() });
      void dialog.accept();
    });
  });
}

/** The texts of the page's in-page alerts (role=alert) right now: the spec's alerts are shown in the page. */
export function alertTexts(page: Page): Promise<string[]> {
  return page.getByRole('alert').allInnerTexts();
}

/**
 * For a test file that needs only the built web app: serves it and connects to the run's Chromium
 * (launchBrowser) before the file's first test, closes both after its last; `receive` gets them
 * once both are up.
 */
export function siteAndBrowserPerFile(receive: (opened: { site: Site; browser: Browser }) => void): void {
  const opened: { site?: Site; browser?: Browser } = {};
  beforeAll(async () => {
    const site = await startSite();
    opened.site = site;
    const browser = await launchBrowser();
    opened.browser = browser;
    receive({ site, browser });
  });
  afterAll(async () => {
    await opened.browser?.close();
    await opened.site?.close();
  });
}
