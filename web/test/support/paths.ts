import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));

export const webDir = resolve(here, '../..');
export const repoRoot = resolve(webDir, '..');
export const distDir = resolve(webDir, 'dist');
export const screenshotDir = resolve(repoRoot, 'test-results/screenshots');
