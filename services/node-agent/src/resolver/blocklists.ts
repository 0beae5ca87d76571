import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { blockingCategories, type BlockingCategory } from '@qw/contracts';

/** The lists shipped with the product (data/blocklists/<category>.txt), read at the agent's start. */
export const shippedBlocklistDir = fileURLToPath(new URL('../../../../data/blocklists', import.meta.url));

const label = /^[a-z0-9_](?:[a-z0-9_-]{0,61}[a-z0-9_])?$/;

/**
 * A domain as a blocklist holds it: lower case, no trailing dot, at least two labels of letters,
 * digits, hyphens (not at either end) and underscores, 253 characters at most; null for anything
 * else (an IP address, a wildcard, a URL, a bare top-level domain).
 */
export function normalDomain(text: string): string | null {
  const domain = text.trim().toLowerCase().replace(/\.$/, '');
  if (domain.length === 0 || domain.length > 253) return null;
  const labels = domain.split('.');
  if (labels.length < 2 || !labels.every((part) => label.test(part))) return null;
  if (/^[0-9]+$/.test(labels.at(-1)!)) return null;
  return domain;
}

/**
 * The domains of a list file: one per line, `#` starts a comment, a hosts-file line
 * ("0.0.0.0 name") counts as its name; lines that are no domain are skipped. Sorted, no repeats.
 */
export function parseDomainList(text: string): string[] {
  const domains = new Set<string>();
  for (const raw of text.split('\n')) {
    const line = raw.replace(/#.*/, '').trim();
    if (!line) continue;
    const words = line.split(/\s+/);
    const name = words.length > 1 && /^(0\.0\.0\.0|127\.0\.0\.1|::1?)$/.test(words[0]!) ? words[1]! : words[0]!;
    const domain = normalDomain(name);
    if (domain) domains.add(domain);
  }
  return [...domains].sort();
}

export type Blocklists = Record<BlockingCategory, string[]>;

/** Every category's list from `dir`; a missing file is an error (a node must not block less than it says). */
export async function readBlocklists(dir: string): Promise<Blocklists> {
  const lists = {} as Blocklists;
  for (const category of blockingCategories) {
    lists[category] = parseDomainList(await readFile(path.join(dir, `${category}.txt`), 'utf8'));
  }
  return lists;
}

/**
 * Each blocked domain once, with every category that lists it (unbound takes one local zone per
 * name, tagged with all its categories). In domain order, categories in `blockingCategories` order.
 */
export function blockedDomains(lists: Blocklists): Array<{ domain: string; categories: BlockingCategory[] }> {
  const byDomain = new Map<string, BlockingCategory[]>();
  for (const category of blockingCategories) {
    for (const domain of lists[category]) {
      const categories = byDomain.get(domain);
      if (categories) categories.push(category);
      else byDomain.set(domain, [category]);
    }
  }
  return [...byDomain.entries()]
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([domain, categories]) => ({ domain, categories }));
}
