import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { safeNextPath, safePathMaxLength } from '../src/index.ts';

const site = 'https://quietwire.example';

describe('safeNextPath: only paths on this site', () => {
  it.each([
    '/',
    '/app/personal/account',
    '/app/personal/billing?x=1#top',
    '/login?next=%2Fapp%2Fpersonal%2Fdevices',
    '/#top',
    '/?a=b',
    '/billing/test-portal?return=/app/business/billing&org_id=0b8f2c8e-8d0a-4d43-9a5c-2b0c7b0e8f11',
    '/%2F%2Fevil.example',
    '/%5Cevil.example',
    '/app/../app/personal',
    '/./app',
    '/a//b',
    '/a\\b',
    '/ü/ñ/日本',
    '/app ',
  ])('honours %j as it is', (raw) => {
    expect(safeNextPath(raw)).toBe(raw);
  });

  it.each([
    ['another host', '//evil.example'],
    ['another host with a path', '//evil.example/path'],
    ['a backslash read as a slash', '/\\evil.example'],
    ['a backslash then a slash', '/\\/evil.example'],
    ['an absolute URL', 'https://evil.example'],
    ['an absolute http URL', 'http://evil.example/app'],
    ['a scheme without slashes', 'javascript:alert(1)'],
    ['a data URL', 'data:text/html,<script>alert(1)</script>'],
    ['a host name', 'evil.example'],
    ['a relative path', 'app/personal'],
    ['a dot path', './app'],
    ['a query only', '?next=/app'],
    ['a hash only', '#top'],
    ['a leading space', ' /app'],
    ['a leading space before two slashes', ' //evil.example'],
    ['a tab that URL parsing drops', '/\t/evil.example'],
    ['a newline that URL parsing drops', '/\n/evil.example'],
    ['a carriage return', '/\r/evil.example'],
    ['a NUL', '/app\u0000'],
    ['DEL', '/app\u007f'],
    ['a C1 control', '/app\u0085'],
    ['dot segments that climb to two slashes', '/..//evil.example'],
    ['a dot segment before two slashes', '/.//evil.example'],
    ['encoded dot segments before two slashes', '/%2e%2e//evil.example'],
    ['the empty string', ''],
  ])('refuses %s: %j', (_why, raw) => {
    expect(safeNextPath(raw)).toBeNull();
  });

  it.each([null, undefined, 0, 1, true, false, {}, [], ['/app'], { toString: () => '/app' }, Symbol('x'), 1n])(
    'refuses what is not a string: %s',
    (raw) => {
      expect(safeNextPath(raw)).toBeNull();
    },
  );

  it('refuses every control character, anywhere', () => {
    const controls = [
      ...Array.from({ length: 0x20 }, (_, code) => code),
      ...Array.from({ length: 0x21 }, (_, index) => 0x7f + index),
    ];
    for (const code of controls) {
      const character = String.fromCharCode(code);
      for (const raw of [`/${character}`, `/app${character}`, `/app?x=${character}`, `/app#${character}`]) {
        expect(safeNextPath(raw), `U+${code.toString(16).padStart(4, '0')} in ${JSON.stringify(raw)}`).toBeNull();
      }
    }
    expect(safeNextPath('/app\u00a0')).toBe('/app\u00a0');
  });

  it(`is capped at ${safePathMaxLength} characters`, () => {
    const longest = `/${'a'.repeat(safePathMaxLength - 1)}`;
    expect(safeNextPath(longest)).toBe(longest);
    expect(safeNextPath(`${longest}a`)).toBeNull();
  });

  it('never lets a value through that leaves this site, whatever the string', () => {
    const pieces = fc.constantFrom('/', '\\', '.', '..', '%2e', '%2f', '%5c', ':', '@', '?', '#', 'evil.example', ' ');
    const suspicious = fc.array(fc.oneof(pieces, fc.string({ maxLength: 3 })), { maxLength: 8 }).map((p) => p.join(''));
    fc.assert(
      fc.property(fc.oneof(suspicious, fc.string(), fc.webUrl(), fc.webPath()), (raw) => {
        const safe = safeNextPath(raw);
        if (safe === null) return;
        expect(safe).toBe(raw);
        const resolved = new URL(safe, site);
        expect(resolved.origin).toBe(site);
        expect(resolved.pathname.startsWith('//')).toBe(false);
        // What a browser does with a Location header or a link of this value: the same host.
        expect(new URL(safe, `${site}/a/b/c`).origin).toBe(site);
      }),
      { numRuns: 2000 },
    );
  });

  it('honours every ordinary path', () => {
    fc.assert(
      fc.property(fc.webPath(), (path) => {
        const raw = `/${path.replace(/^\/+/, '')}`;
        // Dot segments that resolve to `//…` (`/.//x` → `//x`) are refused by design, not ordinary.
        const resolvesToHost = new URL(raw, 'https://site.test').pathname.startsWith('//');
        if (raw.length <= safePathMaxLength && !raw.startsWith('//') && !resolvesToHost)
          expect(safeNextPath(raw)).toBe(raw);
      }),
    );
  });
});
