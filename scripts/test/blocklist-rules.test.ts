import { readFileSync } from 'node:fs';
import path from 'node:path';
import { blockingCategories } from '@qw/contracts';
import { describe, expect, it } from 'vitest';
import { parseDomainList, shippedBlocklistDir } from '../../services/node-agent/src/resolver/blocklists.ts';
import { adblockDomains, domainList, neverBlocked, plainHostnames, publicSuffixes } from '../blocklist-rules.ts';

describe('turning filter lists into domain lists', () => {
  it('takes only the domain-only rules of an Adblock Plus list, and its unconditional exceptions', () => {
    const list = [
      '[Adblock Plus 2.0]',
      '! Title: a list',
      '||Ads.Example^',
      '||tracker.example.net^',
      '||paths.example/banner/^',
      '||third.example^$third-party',
      '||wild*.example^',
      '|https://start.example^',
      'example.org##.ad-box',
      '||192.0.2.7^',
      '||notld^',
      '@@||good.ads.example^',
      '@@||cdn.example^$script,domain=news.example',
      '@@||popup.example^$popup',
      '@@||path.example/x^',
    ].join('\n');
    expect(adblockDomains(list)).toEqual({
      blocked: ['ads.example', 'tracker.example.net'],
      excepted: ['good.ads.example', 'popup.example'],
    });
  });

  it('takes the bare host names of a URL blocklist, not the URLs on shared hosts or IP addresses', () => {
    const list = '! Title: x\nbad.example\n198.51.100.4\nshared.example/evil/payload.exe\n# note\nEVIL.example.org\n';
    expect(plainHostnames(list)).toEqual(['bad.example', 'evil.example.org']);
  });

  it('reads public suffixes, wildcards and exceptions included, as ASCII', () => {
    const psl = '// comment\ncom\nco.uk\n*.ck\n!www.ck\ngithub.io\n公司.cn\n';
    expect([...publicSuffixes(psl)].sort()).toEqual(['ck', 'co.uk', 'com', 'github.io', 'www.ck', 'xn--55qx5d.cn']);
  });

  it('dedupes, drops covered subdomains, never-blocked names (at, under or above), exceptions and public suffixes', () => {
    const keep = ['quietwire.net', 'captive.apple.com'];
    expect(
      domainList(
        [
          'B.example',
          'b.example',
          'x.b.example', // covered by b.example
          'y.z.c.example',
          'z.c.example', // covers the one above
          'quietwire.net',
          'evil.quietwire.net', // under a kept name
          'apple.com', // above a kept name: blocking it would block the check
          'www.apple.com', // a sibling of the kept name: fine
          'good.ads.example', // excepted
          'in.good.ads.example', // under an exception
          'ads.example',
          'github.io', // a public suffix
          'someone.github.io',
          'not a name',
        ],
        { keep, excepted: ['good.ads.example'], publicSuffixes: new Set(['github.io', 'io']) },
      ),
    ).toEqual(['ads.example', 'b.example', 'someone.github.io', 'www.apple.com', 'z.c.example']);
    // A name above an exception stays: only names at or under one go (a block covers its subdomains).
    expect(domainList(['ads.example', 'good.ads.example'], { excepted: ['good.ads.example'] })).toEqual([
      'ads.example',
    ]);
  });

  it('ships lists that hold none of the never-blocked names, nor any name above or under one', () => {
    for (const category of blockingCategories) {
      const names = new Set(parseDomainList(readFileSync(path.join(shippedBlocklistDir, `${category}.txt`), 'utf8')));
      for (const kept of neverBlocked) {
        const labels = kept.split('.');
        const above = labels.slice(0, -1).map((_, i) => labels.slice(i).join('.'));
        expect(
          above.filter((name) => names.has(name)),
          `${category} blocks ${kept}`,
        ).toEqual([]);
        expect(
          [...names].filter((name) => name.endsWith(`.${kept}`)),
          `${category} blocks under ${kept}`,
        ).toEqual([]);
      }
      // No name whose parent is listed too (the parent already blocks it).
      const covered = [...names].filter((name) => {
        const labels = name.split('.');
        return labels.slice(1, -1).some((_, i) => names.has(labels.slice(i + 1).join('.')));
      });
      expect(covered, category).toEqual([]);
    }
  });
});
