/**
 * How scripts/update-blocklists.ts turns its pinned sources into domain lists (pure, tested in
 * scripts/test/blocklist-rules.test.ts). A DNS resolver can only block a whole name and everything
 * under it, so only the rules that mean exactly that are taken; everything else is dropped.
 */
import { domainToASCII } from 'node:url';
import { normalDomain } from '../services/node-agent/src/resolver/blocklists.ts';

/**
 * Names no list may block, nor block by blocking a name above them: our own service, the names a
 * resolver itself depends on, and the connectivity checks operating systems make to decide whether
 * a network works (blocking one makes a phone or laptop report "no internet" or open a captive
 * portal page). A listed name that equals one of these, lies under one, or lies above one is
 * dropped from every list.
 */
export const neverBlocked: readonly string[] = [
  // Quietwire itself.
  'quietwire.net',
  // What resolving itself uses (reverse lookups, the root servers).
  'in-addr.arpa',
  'ip6.arpa',
  'root-servers.net',
  // Operating systems' connectivity checks.
  'connectivitycheck.gstatic.com', // Android, ChromeOS
  'connectivitycheck.android.com',
  'clients3.google.com',
  'captive.apple.com', // iOS, macOS
  'www.msftconnecttest.com', // Windows
  'ipv6.msftconnecttest.com',
  'www.msftncsi.com',
  'dns.msftncsi.com',
  'detectportal.firefox.com', // Firefox
  'nmcheck.gnome.org', // NetworkManager (GNOME, Fedora)
  'connectivity-check.ubuntu.com', // NetworkManager (Ubuntu)
  'network-test.debian.org', // NetworkManager (Debian)
];

/** The domain-only rules of an Adblock Plus / uBlock filter list, and its unconditional exceptions. */
export type AdblockDomains = { blocked: string[]; excepted: string[] };

const domainRule = /^\|\|([^/^$*|@!#]+)\^$/;
const exceptionRule = /^@@\|\|([^/^$*|@!#]+)\^(?:\$(.*))?$/;

/**
 * From filter-list text: every `||name^` rule with no path, wildcard or option (it blocks the name
 * and everything under it, for every kind of request on every page: exactly a DNS block), and every
 * `@@||name^` exception that does not depend on the page it applies on (no `domain=` option): a
 * name the list's authors want reachable everywhere. Rules with a path, a wildcard or options
 * (`$third-party`, `$script`, `$domain=...`), cosmetic rules (`##`) and comments (`!`) are dropped:
 * a resolver cannot honour them. Names are normalized (`normalDomain`); IP addresses are dropped.
 */
export function adblockDomains(text: string): AdblockDomains {
  const blocked = new Set<string>();
  const excepted = new Set<string>();
  for (const raw of text.split('\n')) {
    const line = raw.trim();
    const rule = domainRule.exec(line);
    if (rule) {
      const domain = normalDomain(rule[1]!);
      if (domain) blocked.add(domain);
      continue;
    }
    const exception = exceptionRule.exec(line);
    if (exception && !(exception[2] ?? '').split(',').some((option) => option.startsWith('domain='))) {
      const domain = normalDomain(exception[1]!);
      if (domain) excepted.add(domain);
    }
  }
  return { blocked: [...blocked].sort(), excepted: [...excepted].sort() };
}

/**
 * The host names of a list of plain names and URLs (uBlock's "Online Malicious URL Blocklist": a
 * bare host name blocks that host; a line with a path blocks only that URL on a host that also
 * serves good content, so it is dropped). `!` and `#` start comments; IP addresses are dropped.
 */
export function plainHostnames(text: string): string[] {
  const names = new Set<string>();
  for (const raw of text.split('\n')) {
    const line = raw.trim();
    if (!line || line.startsWith('!') || line.startsWith('#') || /[/:|^$*\s]/.test(line)) continue;
    const domain = normalDomain(line);
    if (domain) names.add(domain);
  }
  return [...names].sort();
}

/**
 * The suffixes of the Public Suffix List (effective_tld_names.dat) under which anyone may register
 * a name: "co.uk", "github.io", "duckdns.org". Blocking one blocks every site under it, so no list
 * may hold one, whatever its source says. Wildcard rules ("*.ck") count as their base name;
 * exceptions ("!www.ck") as theirs. Names in ASCII (punycode).
 */
export function publicSuffixes(text: string): Set<string> {
  const suffixes = new Set<string>();
  for (const raw of text.split('\n')) {
    const line = raw.trim().split(/\s/)[0]!;
    if (!line || line.startsWith('//')) continue;
    const ascii = domainToASCII(line.replace(/^(\*\.|!)/, ''));
    if (ascii) suffixes.add(ascii);
  }
  return suffixes;
}

/** The name and every name above it with at least two labels: a.b.example → a.b.example, b.example. */
function selfAndParents(domain: string): string[] {
  const labels = domain.split('.');
  return labels.slice(0, -1).map((_, i) => labels.slice(i).join('.'));
}

/**
 * One list from several: normalized, without repeats, without names a listed parent already
 * covers (a blocked name blocks its subdomains), without the names `keep` holds or lies under or
 * above (`neverBlocked`), without public suffixes (`publicSuffixes`), and without the names at or
 * under an `excepted` one (a source's own exceptions). Sorted.
 */
export function domainList(
  inputs: Iterable<string>,
  options: { keep?: readonly string[]; excepted?: readonly string[]; publicSuffixes?: ReadonlySet<string> } = {},
): string[] {
  const keep = new Set((options.keep ?? neverBlocked).flatMap((d) => selfAndParents(normalDomain(d) ?? d)));
  const keepExactly = new Set((options.keep ?? neverBlocked).map((d) => normalDomain(d) ?? d));
  const excepted = new Set((options.excepted ?? []).map((d) => normalDomain(d) ?? d));
  const names = new Set<string>();
  for (const input of inputs) {
    const domain = normalDomain(input);
    if (domain === null) continue;
    const above = selfAndParents(domain);
    // At or above a kept name (keep holds every kept name's parents), or under one.
    if (keep.has(domain) || above.some((p) => keepExactly.has(p))) continue;
    if (above.some((p) => excepted.has(p)) || options.publicSuffixes?.has(domain)) continue;
    names.add(domain);
  }
  return [...names]
    .filter(
      (domain) =>
        !selfAndParents(domain)
          .slice(1)
          .some((p) => names.has(p)),
    )
    .sort();
}
