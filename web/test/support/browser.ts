import type { Browser, BrowserContext, Download, Page, Request } from 'playwright-core';
import { afterAll, beforeAll, onTestFailed } from 'vitest';
import { launchBrowser } from './chromium';
import { type Site, startSite } from './site';

export { chromiumPath, launchBrowser } from './chromium';

export type PageOptions = { width?: number; height?: number; colorScheme?: 'light' | 'dark' };

/**
 * A page in a context of its own (own cookies and storage), sized like a phone (360) or a laptop
 * (1280). Closing the context hands the page back for the file's next `openPage` instead (see
 * `recycle`): a new page costs Chromium about a third of a second of CPU and a new renderer, more
 * than most tests' own work in it. QW_PAGE_POOL=0 closes every context for real.
 */
export async function openPage(
  browser: Browser,
  options: PageOptions = {},
): Promise<{ context: BrowserContext; page: Page }> {
  const width = options.width ?? 1280;
  const viewport = { width, height: options.height ?? (width < 600 ? 740 : 800) };
  const colorScheme = options.colorScheme ?? 'light';
  const spare = idlePages.get(browser)?.pop();
  if (spare) {
    await spare.page.setViewportSize(viewport);
    await spare.page.emulateMedia({ media: null, colorScheme, reducedMotion: 'reduce', forcedColors: null });
    reportOnFailure(spare.page);
    return spare;
  }
  const context = await browser.newContext({
    viewport,
    colorScheme,
    reducedMotion: 'reduce',
    // Lets the tests inject axe-core even where the site sends a Content-Security-Policy.
    bypassCSP: true,
  });
  // No route here: the node's check address is failed by the browser's resolver (chromium.ts).
  const page = await context.newPage();
  if (process.env.QW_PAGE_POOL !== '0') recyclable(browser, context, page);
  reportOnFailure(page);
  return { context, page };
}

/** Which handing out of a page is the current one (`reportOnFailure`); none while it is in the pool. */
const handouts = new WeakMap<Page, object>();

/**
 * If the test that was handed `page` fails while it still holds the page, prints where the page
 * stood (`pageAtFailure`): a test that times out while a step waits for an element says nothing of
 * its own about which step it was. A page handed back (closed, or in the pool for the next test)
 * is not read.
 */
function reportOnFailure(page: Page): void {
  const handout = {};
  handouts.set(page, handout);
  const answers: string[] = [];
  // API requests asked and not yet answered, with when they were asked: a test stuck on a request
  // that never came back reads differently from one stuck on a click that asked nothing.
  const pending = new Map<Request, number>();
  const apiPath = (request: Request) => {
    const { pathname } = new URL(request.url());
    return pathname.startsWith('/api/') ? `${request.method()} ${pathname}` : undefined;
  };
  const remember = (answer: string) => {
    answers.push(answer);
    if (answers.length > 8) answers.shift();
  };
  // Removed with the page's other listeners when it is handed back (`recyclable`). A request is
  // answered when its response comes (no listener for its end: every event subscribed to is sent
  // by Chromium for every request of the page, assets included).
  page.on('request', (request) => {
    if (apiPath(request)) pending.set(request, Date.now());
  });
  page.on('requestfailed', (request) => {
    if (pending.delete(request))
      remember(`${apiPath(request)} failed (${request.failure()?.errorText ?? 'no reason given'})`);
  });
  page.on('response', (response) => {
    const request = response.request();
    if (pending.delete(request)) remember(`${apiPath(request)} ${response.status()}`);
  });
  const unanswered = () => [...pending].map(([request, at]) => `${apiPath(request)} asked ${Date.now() - at} ms ago`);
  const held = () => handouts.get(page) === handout && !page.isClosed();
  try {
    onTestFailed(async () =>
      console.error(
        held() ? await pageAtFailure(page, answers, unanswered()) : 'the test failed after handing its page back',
      ),
    );
  } catch {
    // Opened outside a test (a beforeAll): nothing to report a failure to.
  }
}

/**
 * Where a page stood when its test failed: its path (no query: links carry tokens), heading,
 * alerts and busy elements, its last answers from the API and the API requests still unanswered.
 * Waits at most 2 s for the page.
 */
async function pageAtFailure(page: Page, answers: readonly string[], unanswered: readonly string[]): Promise<string> {
  let timer: NodeJS.Timeout | undefined;
  const state = await Promise.race([
    page.evaluate(() => ({
      path: location.pathname,
      heading: document.querySelector('h1')?.textContent?.trim() ?? null,
      alerts: [...document.querySelectorAll('[role="alert"], .qw-alert')]
        .map((element) => element.textContent?.trim())
        .filter(Boolean)
        .slice(0, 5),
      busy: document.querySelectorAll('[aria-busy="true"]').length,
    })),
    new Promise<string>((resolve) => {
      timer = setTimeout(() => resolve('the page did not answer within 2 s'), 2000);
    }),
  ])
    .catch((error: unknown) => `the page could not be read: ${(error as Error).message}`)
    .finally(() => clearTimeout(timer));
  return `where the page stood when the test failed: ${JSON.stringify(state)}; its last answers from the API: ${answers.join(', ') || 'none'}; asked and not answered: ${unanswered.join(', ') || 'none'}`;
}

/** Pages handed back, per connection to the browser (a file's), waiting for the next `openPage`. */
const idlePages = new WeakMap<Browser, Array<{ context: BrowserContext; page: Page }>>();

/**
 * What a test may change in a context or page that cannot be undone, or not cheaply: a page or
 * context using any of these is closed for real when the test is done with it.
 */
const lastingOnContext = [
  'addInitScript',
  'exposeBinding',
  'exposeFunction',
  'setExtraHTTPHeaders',
  'setOffline',
  'grantPermissions',
  'setGeolocation',
  'setHTTPCredentials',
  'route',
  'routeFromHAR',
  'routeWebSocket',
  'setDefaultTimeout',
  'setDefaultNavigationTimeout',
  'newPage',
] as const;
const lastingOnPage = [
  'addInitScript',
  'exposeBinding',
  'exposeFunction',
  'setExtraHTTPHeaders',
  'setDefaultTimeout',
  'setDefaultNavigationTimeout',
  'routeFromHAR',
  'routeWebSocket',
] as const;

/**
 * Makes `context.close()` hand the page back when the test left nothing behind that outlives a
 * reset: its routes, listeners, cookies, permissions and the storage of the one site it visited
 * are cleared and the page goes to about:blank (no script of the site left running). Anything in
 * `lastingOn…`, the page's clock, a second page or a second site, and the context closes for real.
 */
function recyclable(browser: Browser, context: BrowserContext, page: Page): void {
  let lasting = false;
  const mark = <T extends object>(target: T, names: readonly string[]) => {
    for (const name of names) {
      const original = (target as Record<string, unknown>)[name];
      if (typeof original !== 'function') continue;
      (target as Record<string, unknown>)[name] = (...args: unknown[]) => {
        lasting = true;
        return (original as (...a: unknown[]) => unknown).apply(target, args);
      };
    }
  };
  mark(context, lastingOnContext);
  mark(page, lastingOnPage);
  mark(
    page.clock,
    Object.getOwnPropertyNames(Object.getPrototypeOf(page.clock)).filter((name) => name !== 'constructor'),
  );
  const origins = new Set<string>();
  const watchOrigins = () =>
    page.on('framenavigated', (frame) => {
      const { origin } = new URL(frame.url());
      if (origin !== 'null') origins.add(origin);
    });
  watchOrigins();
  const close = context.close.bind(context);
  context.close = async (options?: { reason?: string }) => {
    const [site] = origins;
    const here = page.isClosed() ? undefined : new URL(page.url()).origin;
    if (lasting || !here || context.pages().length !== 1 || origins.size > 1 || (site && site !== here))
      return close(options);
    try {
      await page.unrouteAll({ behavior: 'ignoreErrors' });
      page.removeAllListeners();
      // The site's storage is emptied, and kept empty while its page goes: a page writes to it as
      // it unloads (React Router keeps its scroll positions in sessionStorage on pagehide).
      if (site)
        await page.evaluate(() => {
          localStorage.clear();
          sessionStorage.clear();
          Storage.prototype.setItem = () => undefined;
        });
      await page.goto('about:blank', { timeout: 5_000 });
      // Back from the next test's first page leads to this blank page, never to this test's pages.
      const session = await context.newCDPSession(page);
      await session.send('Page.resetNavigationHistory');
      await session.detach();
      await context.clearCookies();
      await context.clearPermissions();
    } catch {
      return close(options);
    }
    origins.clear();
    watchOrigins();
    const idle = idlePages.get(browser) ?? [];
    idlePages.set(browser, idle);
    handouts.delete(page);
    idle.push({ context, page });
  };
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
