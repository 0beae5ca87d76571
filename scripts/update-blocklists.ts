/**
 * `npm run blocklists:update`: writes data/blocklists/<category>.txt again from the pinned sources
 * (data/blocklists/README.md names each, with its licence and what it obliges us to):
 * - the hand-curated lists in data/blocklists/sources/ (every category);
 * - ads and trackers: EasyList and EasyPrivacy as Debian's uBlock Origin package ships them
 *   (`apt-get download` of the pinned version; its copyright file records their licence);
 * - malware: the Online Malicious URL Blocklist (URLhaus data) from the same package, and the
 *   phishing list of the npm package eth-phishing-detect (`npm pack` of the pinned version).
 * Only the update needs the package registries (npm's and Debian's, with `apt-get update` run
 * once and dpkg-deb at hand); nodes only read the files this writes, nothing is downloaded at run
 * time. To move a pin: change the version and its checksum here, read the new version's licence
 * texts, run this, and commit the lists and the README together. The script refuses a package
 * whose checksum or licence text is not the one recorded here.
 */
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { blockingCategories, type BlockingCategory } from '@qw/contracts';
import { parseDomainList } from '../services/node-agent/src/resolver/blocklists.ts';
import { adblockDomains, domainList, plainHostnames, publicSuffixes } from './blocklist-rules.ts';

const dir = fileURLToPath(new URL('../data/blocklists', import.meta.url));

/** Debian's uBlock Origin (bookworm): EasyList, EasyPrivacy and URLhaus filter files inside. */
export const ublockDeb = {
  name: 'webext-ublock-origin-chromium',
  version: '1.67.0+dfsg-1~deb12u1',
  sha256: '7c43dd25f680613f2a7e83bc643e42eec624a8f47a3822518123e48e87a143f4',
};
/** MetaMask's phishing list (src/config.json `blacklist`). */
export const ethPhishingDetect = {
  spec: 'eth-phishing-detect@1.2.0',
  integrity: 'sha512-+M7D4dhu5tkSA9b5eiBwDeJCjwy+7Lv49nuTEw8fNZIZUAVZC3d2XHatBq1MOW7J8kxNGbBdgBuIf65opI7Tkg==',
};

function check(condition: boolean, message: string): void {
  if (!condition) throw new Error(`${message}; read the new licence and update README.md and this script first`);
}

type Ublock = {
  easylist: string;
  easyprivacy: string;
  urlhaus: string;
  publicSuffixList: string;
  updated: Record<string, string>;
};

/** The three filter files of the pinned .deb, after checking its checksum and recorded licences. */
function ublockAssets(work: string): Ublock {
  const spec = `${ublockDeb.name}=${ublockDeb.version}`;
  try {
    execFileSync('apt-get', ['download', spec], { cwd: work, stdio: ['ignore', 'ignore', 'pipe'] });
  } catch (error) {
    throw new Error(`apt-get download ${spec} failed (run apt-get update first; the version may be gone): ${error}`);
  }
  const deb = readdirSync(work).find((f) => f.endsWith('.deb'));
  if (!deb) throw new Error(`apt-get download ${spec} wrote no .deb`);
  const digest = createHash('sha256')
    .update(readFileSync(path.join(work, deb)))
    .digest('hex');
  check(digest === ublockDeb.sha256, `${deb}: sha256 ${digest}, not the pinned ${ublockDeb.sha256}`);
  const root = path.join(work, 'deb');
  execFileSync('dpkg-deb', ['-x', path.join(work, deb), root]);
  const read = (file: string) => readFileSync(path.join(root, file), 'utf8');
  const copyright = read(`usr/share/doc/${ublockDeb.name}/copyright`);
  check(
    /Files: uAssets\/thirdparties\/easylist\/\*\n[^\n]*\nLicense: GPL-3\+ or CC-BY-SA-3\.0\+\n/.test(copyright),
    'the package no longer records EasyList as "GPL-3+ or CC-BY-SA-3.0+"',
  );
  check(
    /Files: uAssets\/thirdparties\/urlhaus-filter\/\*\n[^\n]*\nLicense: CC0-1\.0\n/.test(copyright),
    'the package no longer records the URLhaus filter as CC0-1.0',
  );
  const assets = 'usr/share/chromium/extensions/ublock-origin/assets/thirdparties';
  const urlhausLicense = read(`${assets}/urlhaus-filter/LICENSE.md`);
  check(urlhausLicense.startsWith('CC0 1.0 Universal'), 'urlhaus-filter/LICENSE.md is no longer CC0 1.0');
  const easylist = read(`${assets}/easylist/easylist.txt`);
  const easyprivacy = read(`${assets}/easylist/easyprivacy.txt`);
  for (const [name, text] of [
    ['EasyList', easylist],
    ['EasyPrivacy', easyprivacy],
  ] as const) {
    check(text.includes(`! Title: ${name}\n`), `${name}: its title line is gone`);
    check(text.includes('! Licence: https://easylist.to/pages/licence.html'), `${name}: its licence line changed`);
  }
  const urlhaus = read(`${assets}/urlhaus-filter/urlhaus-filter-online.txt`);
  check(urlhaus.includes('! Source: https://urlhaus.abuse.ch/'), 'the URLhaus filter no longer names URLhaus');
  const publicSuffixList = read(`${assets}/publicsuffix.org/list/effective_tld_names.dat`);
  check(publicSuffixList.includes('// ===BEGIN ICANN DOMAINS==='), 'the Public Suffix List is not where it was');
  return {
    publicSuffixList,
    easylist,
    easyprivacy,
    urlhaus,
    updated: { urlhaus: /^! Updated: (\S+)/m.exec(urlhaus)?.[1] ?? 'unknown' },
  };
}

/** The `blacklist` of eth-phishing-detect's src/config.json, after checking integrity and licence. */
function phishingDomains(work: string): string[] {
  const [packed] = JSON.parse(
    execFileSync('npm', ['pack', ethPhishingDetect.spec, '--json', '--pack-destination', work], {
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'pipe'],
    }),
  ) as Array<{ filename: string; integrity: string }>;
  check(packed!.integrity === ethPhishingDetect.integrity, `${ethPhishingDetect.spec}: integrity changed`);
  execFileSync('tar', [
    'xzf',
    path.join(work, packed!.filename),
    '-C',
    work,
    'package/src/config.json',
    'package/LICENSE',
  ]);
  const license = readFileSync(path.join(work, 'package/LICENSE'), 'utf8');
  check(license.includes("DON'T BE A DICK PUBLIC LICENSE"), `${ethPhishingDetect.spec}: LICENSE is not DBAD`);
  const config = JSON.parse(readFileSync(path.join(work, 'package/src/config.json'), 'utf8')) as {
    blacklist: string[];
  };
  return config.blacklist;
}

/** One input of one category's list, as the README's table shows it. */
type Source = {
  category: BlockingCategory;
  source: string;
  where: string;
  licence: string;
  names: string[];
  excepted?: string[];
};

const ccBySa = 'https://creativecommons.org/licenses/by-sa/3.0/';

/** The notice a list with EasyList data carries (CC BY-SA 3.0 §4(b), §4(c): licence, credit, changes). */
const easylistNotice = (list: string) => [
  `# Contains data from ${list} by the EasyList authors (https://easylist.to/), licensed to us under`,
  `# Creative Commons Attribution-ShareAlike 3.0 Unported (${ccBySa}), one of its two licences.`,
  '# Changed by Quietwire: only the rules that block a whole domain (||name^) are kept, merged with',
  '# our own names. This file as a whole is licensed CC BY-SA 3.0 Unported; it comes with no warranty.',
];

const notices: Partial<Record<BlockingCategory, string[]>> = {
  ads: easylistNotice('EasyList'),
  trackers: easylistNotice('EasyPrivacy'),
};

const curatedLicence = 'ours (licensed as the rest of this repository)';

function readme(sources: Source[], lists: Record<BlockingCategory, string[]>, checked: string): string {
  const count = (n: number) => n.toLocaleString('en-US');
  const bytes = blockingCategories.reduce((sum, c) => sum + readFileSync(path.join(dir, `${c}.txt`)).length, 0);
  return [
    '# Blocklists shipped with Quietwire',
    '',
    'One file per content-blocking category (`libs/contracts/src/blocking.ts`): `ads.txt`,',
    '`trackers.txt`, `malware.txt`, `adult.txt`, `gambling.txt`, one domain per line (`#` comments).',
    'A listed name blocks everything under it too. Every node agent reads them when its resolver',
    'starts (`services/node-agent/src/resolver/`); nothing is downloaded at run time.',
    '',
    '## Updating',
    '',
    'The files and this README are generated: do not edit them. Edit `sources/` (our own names) or a',
    'pin in `scripts/update-blocklists.ts`, then, on a Debian machine that reaches the npm registry',
    "and Debian's archive (only the update needs them):",
    '',
    '```sh',
    'apt-get update            # once: apt-get download needs the package index',
    'npm run blocklists:update # apt-get download + dpkg-deb -x, npm pack; writes the lists and this README',
    '```',
    '',
    "and commit the lists with this README. The script refuses a package whose checksum (the .deb's",
    "sha256, the npm tarball's integrity) or licence text is not the one pinned: moving a pin means",
    'reading the new licence texts first. When Debian replaces the pinned version in its archive,',
    '`apt-get download` fails: pin the new version (`apt-cache policy webext-ublock-origin-chromium`).',
    '',
    'How the lists are made (`scripts/blocklist-rules.ts`, tested in',
    '`scripts/test/blocklist-rules.test.ts`): names are lowercased and must be valid host names of at',
    'least two labels (IP addresses, wildcards and URLs are dropped); from Adblock-syntax lists only',
    '`||name^` rules with no path, wildcard or option are taken (a resolver can block a whole name,',
    "not a path or a request type), and names at or under one of the list's exceptions that apply",
    'on every page (`@@||name^` without `domain=`) are dropped; from the URLhaus list only bare host',
    'names (a URL with a path names a file on a host that also serves good content; IP addresses,',
    'most of that file, cannot be blocked by a resolver); repeats and',
    'names whose parent is listed too are dropped; and no list may hold a public suffix (the Public',
    'Suffix List in the same package, read at update time only) nor a name at, under or above one of',
    '`neverBlocked`: our own domain, `in-addr.arpa`, `ip6.arpa`, `root-servers.net`, and the',
    'connectivity checks of Android, Apple, Windows, Firefox and NetworkManager (blocking one makes a',
    'device say it has no internet).',
    '',
    `## Sources and licences (checked ${checked})`,
    '',
    '| Category | Source | Version / how fetched | Licence | Names taken |',
    '| --- | --- | --- | --- | --- |',
    ...sources.map(
      (s) =>
        `| ${s.category} | ${s.source} | ${s.where} | ${s.licence} | ${count(domainList(s.names, { excepted: s.excepted }).length)} |`,
    ),
    '',
    '"Names taken": after the rules above, before merging with the other sources of the category.',
    '',
    '| Category | Names shipped |',
    '| --- | --- |',
    ...blockingCategories.map((c) => `| ${c} | ${count(lists[c].length)} |`),
    '',
    `In all ${count(blockingCategories.reduce((n, c) => n + lists[c].length, 0))} names, ${(bytes / 1e6).toFixed(1)} MB.`,
    'On a node, unbound holds one local zone per name (tagged with its categories): start-up and',
    'memory with these lists are measured by `make bench NAME=resolver` (docs/architecture.md).',
    '',
    '## What each category is, and is not',
    '',
    '- **ads**, **trackers**: the whole-domain rules of EasyList and EasyPrivacy, the lists most ad',
    '  blockers start from, plus our own names. A browser blocker applies many more rules (paths,',
    "  page elements); a resolver cannot, so ads served from a site's own domain still show.",
    '- **malware**: hosts that served malware (URLhaus, as of the date in `malware.txt`; the Debian',
    '  package is updated rarely, so the list ages between updates) and phishing domains aimed at',
    '  cryptocurrency wallets (eth-phishing-detect). Not a complete malware list.',
    '- **adult**, **gambling**: small hand-made lists of the largest, best-known sites of each kind,',
    '  written by us from public knowledge, not copied from any list. They block the obvious cases and',
    '  nothing like all of them: no list we could fetch and whose licence allows a paid service was',
    '  found (see below). A larger, verified source should replace or extend each one.',
    '',
    '## Attribution and share-alike',
    '',
    '`ads.txt` and `trackers.txt` contain data from EasyList and EasyPrivacy by the EasyList authors',
    '(https://easylist.to/), which are dual licensed GPL-3.0-or-later or CC BY-SA 3.0-or-later; we',
    `use them under Creative Commons Attribution-ShareAlike 3.0 Unported (${ccBySa}).`,
    'Changes: only whole-domain rules kept, merged with our own names. As adaptations, these two files',
    'are licensed CC BY-SA 3.0 Unported as a whole (their header says so and must stay); the rest of',
    'Quietwire is not affected (§4(b): the licence covers the adaptation, not the collection around',
    'it). `malware.txt` contains URLhaus data by abuse.ch via the Online Malicious URL Blocklist',
    '(malware-filter, CC0 1.0: no conditions) and the phishing list of eth-phishing-detect by MetaMask',
    "(DON'T BE A DICK PUBLIC LICENSE 1.1).",
    '',
    '## Sources considered and not shipped',
    '',
    "- **Peter Lowe's ad and tracking server list** (pgl.yoyo.org): Debian removes it from its",
    '  uBlock Origin package (`Files-Excluded` in its copyright file), so it could not be fetched',
    '  here, and its terms could not be read; its commercial use is not clearly allowed. Not shipped.',
    "- **uBlock Origin's own lists** (badware, privacy; GPL-3.0, in the same package): the badware",
    '  list blocks whole sites behind a warning page a user may click through, which a resolver',
    '  cannot offer; GPL-3.0 data would also put the merged malware list under the GPL. Not used.',
    '- **StevenBlack/hosts** (repository licence MIT): not published on npm (its package.json is',
    '  private) and not reachable from where this was built. Its unified file also merges other lists',
    '  that carry their own licences, some of them non-commercial.',
    '- **Hagezi** and **OISD**: their licences are reported differently by different sources and',
    '  could not be read upstream from here; not shipped.',
    '- **@ghostery/trackerdb** (npm): CC-BY-NC-SA-4.0, non-commercial only; a paid service may not',
    '  use it.',
    '- **@adguard/dnr-rulesets**, **@gorhill/ubo-core** (npm): GPL-3.0 filter rules in adblock',
    '  syntax for browsers; EasyList and EasyPrivacy from Debian cover the same ground under a',
    '  licence we can meet for data files.',
    "- **Adult and gambling lists**: none found on npm or in Debian. Debian's e2guardian ships empty",
    '  site lists and squidguard none; the npm packages whose names suggest one are unrelated code.',
    '  The device page says so in a hint under the boxes ("only the best-known sites").',
    '',
  ].join('\n');
}

function main(): void {
  const work = mkdtempSync(path.join(tmpdir(), 'qw-blocklists-'));
  try {
    const ublock = ublockAssets(work);
    const phishing = phishingDomains(work);
    // Used, not shipped: no list may block a whole public suffix (MPL-2.0, read at update time only).
    const suffixes = publicSuffixes(ublock.publicSuffixList);
    const easylist = adblockDomains(ublock.easylist);
    const easyprivacy = adblockDomains(ublock.easyprivacy);
    const curated = (category: BlockingCategory): Source => ({
      category,
      source: `\`sources/${category}.txt\`, hand-curated by Quietwire`,
      where: 'this repository',
      licence: curatedLicence,
      names: parseDomainList(readFileSync(path.join(dir, 'sources', `${category}.txt`), 'utf8')),
    });
    const deb = `\`${ublockDeb.name}\` ${ublockDeb.version} (Debian bookworm), \`apt-get download\`, sha256 ${ublockDeb.sha256.slice(0, 12)}…`;
    const easylistLicence = (file: string) =>
      `dual: the package's copyright file records \`Files: uAssets/thirdparties/easylist/*\` "Copyright: (C) 2015 The EasyList authors" "License: GPL-3+ or CC-BY-SA-3.0+"; the list's header points to easylist.to/pages/licence.html (not reachable from here). We take **CC BY-SA 3.0**: "You may Distribute … an Adaptation only under the terms of: (i) this License …", with credit and "a copy of, or the URI for" the licence (§4(b), §4(c)); ${file} keeps that licence`;
    const sources: Source[] = [
      curated('ads'),
      {
        category: 'ads',
        source: 'EasyList (`assets/thirdparties/easylist/easylist.txt` of uBlock Origin)',
        where: deb,
        licence: easylistLicence('ads.txt'),
        names: easylist.blocked,
        excepted: easylist.excepted,
      },
      curated('trackers'),
      {
        category: 'trackers',
        source: 'EasyPrivacy (`assets/thirdparties/easylist/easyprivacy.txt` of uBlock Origin)',
        where: deb,
        licence: easylistLicence('trackers.txt'),
        names: easyprivacy.blocked,
        excepted: easyprivacy.excepted,
      },
      curated('malware'),
      {
        category: 'malware',
        source: `Online Malicious URL Blocklist by malware-filter, from URLhaus (abuse.ch) data, updated ${ublock.updated.urlhaus} (\`assets/thirdparties/urlhaus-filter/urlhaus-filter-online.txt\`)`,
        where: deb,
        licence:
          'CC0 1.0 (`LICENSE.md` beside it, read in full; the copyright file: "License: CC0-1.0"): the owner "waives … all of Affirmer\'s Copyright and Related Rights … for any purpose whatsoever, including without limitation commercial" purposes; no conditions',
        names: plainHostnames(ublock.urlhaus),
      },
      {
        category: 'malware',
        source: "`blacklist` of `src/config.json` in **eth-phishing-detect** (MetaMask's phishing list)",
        where: `${ethPhishingDetect.spec.split('@')[1]}, \`npm pack ${ethPhishingDetect.spec}\` (integrity pinned)`,
        licence:
          '"DON\'T BE A DICK PUBLIC LICENSE" 1.1 (`LICENSE` in the tarball, read in full): do what you like with it; do not pass the unmodified original off as your own work or sell it unmodified; no warranty. We ship it as one input to our own list, with this attribution',
        names: phishing,
      },
      curated('adult'),
      curated('gambling'),
    ];
    const lists = {} as Record<BlockingCategory, string[]>;
    for (const category of blockingCategories) {
      const mine = sources.filter((s) => s.category === category);
      const domains = domainList(
        mine.flatMap((s) => s.names),
        { excepted: mine.flatMap((s) => s.excepted ?? []), publicSuffixes: suffixes },
      );
      lists[category] = domains;
      writeFileSync(
        path.join(dir, `${category}.txt`),
        [
          `# Quietwire blocklist "${category}": ${domains.length} names; each blocks its subdomains too.`,
          '# Generated by scripts/update-blocklists.ts (npm run blocklists:update); do not edit. From:',
          ...mine.map((s) => `# - ${s.source.replaceAll('`', '').replaceAll('**', '')}`),
          ...(notices[category] ?? []),
          '# Sources, versions and licences: README.md beside this file.',
          ...domains,
          '',
        ].join('\n'),
      );
      console.log(`${category}: ${domains.length} names`);
    }
    const checked = new Date().toISOString().slice(0, 10);
    writeFileSync(path.join(dir, 'README.md'), readme(sources, lists, checked));
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

main();
