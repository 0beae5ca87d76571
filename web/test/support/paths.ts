import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));

export const webDir = resolve(here, '../..');
export const repoRoot = resolve(webDir, '..');
export const distDir = resolve(webDir, 'dist');
export const screenshotDir = resolve(repoRoot, 'test-results/screenshots');

/**
 * Whether this run photographs the pages it checks (`make screenshots`, or QW_SCREENSHOTS=1 with
 * any test command): the pictures are for people reviewing a screen, not something a test asserts,
 * and a full-page PNG costs Chromium about as much CPU as the page load it follows, so `make test`
 * leaves them out.
 */
export const takingScreenshots = process.env.QW_SCREENSHOTS === '1';
