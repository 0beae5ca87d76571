import { readFileSync } from 'node:fs';

/** What the node reports as its agent's version: AGENT_VERSION when set, else this package's version. */
export function agentVersion(configured: string | undefined): string {
  if (configured) return configured;
  const manifest = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as {
    version?: string;
  };
  return manifest.version ?? 'unknown';
}
