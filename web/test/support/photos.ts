import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import type { Locator, Page } from 'playwright-core';

/**
 * Whether this run photographs the pages it checks (`make screenshots`, or QW_SCREENSHOTS=1 with
 * any test command): the pictures are for people reviewing a screen, not something a test asserts,
 * and a full-page PNG costs Chromium about as much CPU as the page load it follows, so `make test`
 * leaves them out.
 */
const takingScreenshots = process.env.QW_SCREENSHOTS === '1';

/** A screenshot of the page (or one element) into `path` when the run takes them (`takingScreenshots`). */
export async function photograph(
  target: Page | Locator,
  path: string,
  options: { fullPage?: boolean } = {},
): Promise<void> {
  if (!takingScreenshots) return;
  mkdirSync(dirname(path), { recursive: true });
  await target.screenshot({ path, ...options });
}
