import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import type { Locator, Page } from 'playwright-core';
import { takingScreenshots } from './paths';

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
