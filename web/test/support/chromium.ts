import { tunnelCheckIpv4 } from '@qw/contracts';
import { type Browser, type BrowserServer, chromium } from 'playwright-core';

/**
 * Debian's headless build of Chromium (package chromium-headless-shell): the same Blink and V8 as
 * the browser, without the desktop browser's own layers. A browser test file took about a third
 * less of Chromium's CPU in it than in `/usr/bin/chromium` started headless (auth-flows: 58 s
 * against 86 s).
 */
export const chromiumPath = process.env.QW_CHROMIUM_PATH ?? '/usr/bin/chromium-headless-shell';

const chromiumArgs = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  // The Overview asks the node's check address (issue #25), which no test may send traffic to: the
  // browser's resolver fails it at once (net::ERR_NAME_NOT_RESOLVED), as a machine outside a tunnel
  // fails to reach it. Done here rather than by a route on every context, which had Chromium hand
  // every request of every page to the test process to decide (auth-flows: 58 s of Chromium's CPU
  // with the route, 41 s without). A test that wants an answer from it routes it on its page.
  `--host-resolver-rules=MAP ${tunnelCheckIpv4} ~NOTFOUND`,
];

/** Debian's headless Chromium, as the tests run it. */
const launchOptions = { executablePath: chromiumPath, headless: true, args: chromiumArgs };

/**
 * Where the test run's one Chromium listens: global-setup.ts starts it before the first test file
 * and sets this variable, which every test process inherits.
 */
export const sharedBrowserEnv = 'QW_BROWSER_WS_ENDPOINT';

/**
 * A browser for one test file. Within `vitest run` it is a connection to the run's one Chromium
 * (a launch costs a second or more of CPU per file, a connection a few milliseconds); pages still
 * live in contexts of their own (own cookies, storage and cache), and `close()` ends the
 * connection and every context it opened, never the shared browser. Elsewhere (a script, a
 * benchmark, or a run with QW_SHARED_BROWSER=0) it launches Chromium with a fresh temporary profile.
 */
export async function launchBrowser(): Promise<Browser> {
  const shared = process.env[sharedBrowserEnv];
  if (shared) return chromium.connect(shared);
  return chromium.launch(launchOptions);
}

/** Starts the run's shared Chromium (global-setup.ts); answers its endpoint and how to stop it. */
export async function startSharedBrowser(): Promise<{ wsEndpoint: string; close(): Promise<void> }> {
  const server: BrowserServer = await chromium.launchServer({ ...launchOptions, host: '127.0.0.1' });
  return { wsEndpoint: server.wsEndpoint(), close: () => server.close() };
}
