import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { seriousAxeViolations } from './support/axe';
import { openPage, siteAndBrowserPerFile } from './support/browser';
import { screenshotDir } from './support/paths';
import { footerOnlyLinkTargets, layoutLinkTargets, publicPages } from './support/public-pages';
import type { Site } from './support/site';
import { photograph } from './support/photos';

let site: Site;
let browser: Browser;

siteAndBrowserPerFile((opened) => ({ site, browser } = opened));

const stallMs = 20_000;

/** Opens a path at a width and waits for the screen's heading; pageerrors fail the test. */
async function visit(path: string, width = 1280, colorScheme: 'light' | 'dark' = 'light') {
  const { context, page } = await openPage(browser, { width, colorScheme });
  const errors: string[] = [];
  const requested: string[] = [];
  page.on('pageerror', (error) => errors.push(error.message));
  page.on('request', (request) => requested.push(request.url()));
  // Under the test's 30 s: a load that stalls fails naming itself instead of the whole test timing
  // out. Given per call: a page whose default timeout changed is not handed on to the next test.
  await page.goto(`${site.url}${path}`, { timeout: stallMs });
  await page.locator('h1').first().waitFor({ timeout: stallMs });
  return {
    page,
    errors,
    requested,
    close: async () => {
      await context.close();
      expect(errors).toEqual([]);
    },
  };
}

function hrefs(page: Page, selector: string): Promise<string[]> {
  return page.locator(selector).evaluateAll((links) => links.map((link) => link.getAttribute('href') ?? ''));
}

describe('every public page', () => {
  for (const { name, path, heading } of publicPages) {
    it(`${path}: title, description, landmarks, header and footer links, skip link, no chart code`, async () => {
      const { page, requested, close } = await visit(path);
      await page.waitForLoadState('networkidle', { timeout: stallMs });
      expect(requested.filter((url) => /echarts|zrender/.test(url))).toEqual([]);
      await expect(page.locator('h1').first().innerText()).resolves.toBe(heading);
      const title = await page.title();
      if (name === 'home') expect(title).toContain('Quietwire');
      else expect(title).toMatch(/^.+ — Quietwire$/);
      const description = await page.locator('meta[name="description"]').getAttribute('content');
      expect(description?.length ?? 0).toBeGreaterThan(40);

      await expect(page.locator('header.site-header').count()).resolves.toBe(1);
      await expect(page.locator('main#main').count()).resolves.toBe(1);
      await expect(page.locator('footer').count()).resolves.toBe(1);
      expect(new Set(await hrefs(page, 'nav[aria-label="Main"] a'))).toEqual(new Set(layoutLinkTargets));
      expect(new Set(await hrefs(page, 'footer nav[aria-label="Footer"] a'))).toEqual(
        new Set([...layoutLinkTargets, ...footerOnlyLinkTargets]),
      );
      await expect(page.locator('header .site-brand').innerText()).resolves.toBe('Quietwire');

      // Keyboard: the first Tab lands on the skip link, which moves focus to the main content.
      await page.keyboard.press('Tab');
      await expect(page.evaluate(() => document.activeElement?.textContent)).resolves.toBe('Skip to content');
      await page.keyboard.press('Enter');
      await expect(page.evaluate(() => document.activeElement?.id)).resolves.toBe('main');
      await close();
    });

    it(`${path}: no serious or critical axe-core violations, light and dark`, async () => {
      for (const scheme of ['light', 'dark'] as const) {
        const { page, close } = await visit(path, 1280, scheme);
        const violations = await seriousAxeViolations(page);
        expect(violations, `${scheme}: ${JSON.stringify(violations, null, 2)}`).toEqual([]);
        await close();
      }
    });

    // One test per width, each a page load (and, when the run takes them, a full-page PNG of a long
    // page): both widths in one 30 s test ran out of time once on a loaded CI machine.
    for (const width of [360, 1280]) {
      it(`${path}: readable at ${width} px (no sideways page scroll)`, async () => {
        const { page, close } = await visit(path, width);
        const scrollWidth = await page.evaluate(() => document.documentElement.scrollWidth);
        expect(scrollWidth).toBeLessThanOrEqual(width);
        await photograph(page, join(screenshotDir, `${name}-${width}.png`), { fullPage: true });
        await close();
      });
    }
  }
});

describe('header at 360 px', () => {
  it('collapses the navigation into a menu button that opens, closes with Esc, and navigates', async () => {
    const { page, close } = await visit('/', 360);
    const menu = page.getByRole('button', { name: 'Menu' });
    const nav = page.locator('nav[aria-label="Main"]');
    await expect(menu.isVisible()).resolves.toBe(true);
    await expect(nav.isVisible()).resolves.toBe(false);
    await menu.click();
    await expect(menu.getAttribute('aria-expanded')).resolves.toBe('true');
    await expect.poll(() => nav.isVisible()).toBe(true);
    await page.keyboard.press('Escape');
    await expect.poll(() => nav.isVisible()).toBe(false);
    await expect(page.evaluate(() => document.activeElement?.textContent)).resolves.toBe('Menu');
    await menu.click();
    await nav.getByRole('link', { name: 'Pricing' }).click();
    await page.waitForURL(`${site.url}/pricing`);
    await expect.poll(() => page.locator('h1').innerText()).toBe('Plans and prices');
    await expect.poll(() => nav.isVisible()).toBe(false);
    await close();
  });
});

describe('/ (home)', () => {
  it('shows the hero, its buttons, every section and the final call to action', async () => {
    const { page, close } = await visit('/');
    const main = page.locator('main');
    await expect(main.getByRole('heading', { level: 1 }).innerText()).resolves.toBe('Private. Fast. Simple.');
    await expect(main.getByRole('link', { name: 'Get Started', exact: true }).getAttribute('href')).resolves.toBe(
      '/pricing',
    );
    await expect(main.getByRole('link', { name: 'How it works', exact: true }).getAttribute('href')).resolves.toBe(
      '/faq',
    );
    await expect(main.getByRole('link', { name: 'See Plans', exact: true }).getAttribute('href')).resolves.toBe(
      '/pricing',
    );

    const headings = await main.locator('h2').allInnerTexts();
    expect(headings).toEqual(
      expect.arrayContaining([
        'Why Quietwire',
        'How Quietwire compares',
        'How it works',
        'Why you should use a VPN',
        'Security',
        'Speed',
      ]),
    );
    const text = await main.innerText();
    for (const step of ['Choose a plan', 'Create a device', 'Connect in seconds']) expect(text).toContain(step);
    for (const figure of ['450-900 Mbps', '350-800 Mbps', '8-20 ms', '10-30% lower ping'])
      expect(text).toContain(figure);
    expect(text).toContain('Typical figures, not guaranteed.');

    const comparison = main.getByRole('table', { name: 'Features compared with other VPN providers' });
    const columns = await comparison.locator('thead th').allInnerTexts();
    expect(columns).toEqual([
      'Feature',
      'Quietwire',
      'Harborline VPN',
      'Meridian Tunnel',
      'Skygate VPN',
      'Pinecrest VPN',
      'Lattice Privacy',
      'Bluefin Secure',
    ]);
    await close();
  });

  it("'Get Started' goes to /pricing, 'How it works' to /faq and 'See Plans' to /pricing", async () => {
    const { page, close } = await visit('/');
    for (const [name, target, heading] of [
      ['Get Started', '/pricing', 'Plans and prices'],
      ['How it works', '/faq', 'Frequently asked questions'],
      ['See Plans', '/pricing', 'Plans and prices'],
    ] as const) {
      await page.goto(`${site.url}/`);
      await page.locator('main').getByRole('link', { name, exact: true }).click();
      await page.waitForURL(`${site.url}${target}`);
      await expect.poll(() => page.locator('h1').innerText()).toBe(heading);
      await expect.poll(() => page.title()).toBe(`${heading === 'Plans and prices' ? 'Pricing' : 'FAQ'} — Quietwire`);
    }
    await close();
  });
});

describe('/pricing', () => {
  const expected = {
    personal: [
      {
        name: 'Personal',
        devices: 'Unlimited devices (fair use: up to 100 per account)',
        price: '$7.99/month',
        badge: null,
      },
      {
        name: 'Gaming',
        devices: 'Unlimited devices (fair use: up to 100 per account)',
        price: '$11.99/month',
        badge: 'Most Popular',
      },
    ],
    business: [
      { name: 'Business 10', devices: '10 devices', price: '$50.00/month', badge: null },
      { name: 'Business 50', devices: '50 devices', price: '$200.00/month', badge: 'Best for Teams' },
      { name: 'Business 250+', devices: '250 devices', price: '$850.00/month', badge: null },
    ],
  };

  it('#personal holds Personal and Gaming, #business the three Business cards, each complete', async () => {
    const { page, close } = await visit('/pricing');
    for (const [anchor, cards] of Object.entries(expected)) {
      const section = page.locator(`section#${anchor}`);
      const articles = section.locator('article');
      await expect(articles.count()).resolves.toBe(cards.length);
      for (const [index, card] of cards.entries()) {
        const article = articles.nth(index);
        await expect(article.locator('h3').innerText()).resolves.toBe(card.name);
        const text = await article.innerText();
        expect(text).toContain(card.devices);
        await expect(article.locator('.co-plan__price').textContent()).resolves.toBe(card.price);
        if (card.badge) expect(text).toContain(card.badge);
        else expect(await article.locator('.qw-badge').count()).toBe(0);
        await expect(article.locator('li').count()).resolves.toBeGreaterThan(2);
        const button = article.getByRole('button', { name: `Get ${card.name}`, exact: true });
        await expect(button.isEnabled()).resolves.toBe(true);
        // The chosen plan travels through sign-in to Billing (issue #15).
        await expect(
          article.getByRole('link', { name: 'Sign in first', exact: true }).getAttribute('href'),
        ).resolves.toMatch(/^\/login\?next=%2Fapp%2Fpersonal%2Fbilling%3Fplan%3D[a-z0-9]+$/);
      }
    }
    await close();
  });

  it('compares providers with the competitor data and the price ranges below the cards', async () => {
    const { page, close } = await visit('/pricing');
    const providers = page.getByRole('table', { name: 'VPN providers compared' });
    const text = await providers.innerText();
    for (const name of [
      'Harborline VPN',
      'Meridian Tunnel',
      'Skygate VPN',
      'Pinecrest VPN',
      'Lattice Privacy',
      'Bluefin Secure',
    ])
      expect(text).toContain(name);
    const prices = await providers.locator('tbody tr td:nth-of-type(1)').allInnerTexts();
    expect(prices).toEqual(['$7.99', '$12.95', '$12.99', '$12.95', '$9.99', '$12.99', '$11.99']);

    // Sorting by price puts the cheapest first.
    await providers.getByRole('button', { name: /Price per month/ }).click();
    await expect.poll(() => providers.locator('thead th').nth(1).getAttribute('aria-sort')).toBe('ascending');
    await expect(providers.locator('tbody tr td:nth-of-type(1)').allInnerTexts()).resolves.toEqual([
      '$7.99',
      '$9.99',
      '$11.99',
      '$12.95',
      '$12.95',
      '$12.99',
      '$12.99',
    ]);

    const ranges = await page.getByRole('table', { name: /comparable plans elsewhere/ }).innerText();
    for (const range of ['$9.99-$12.99', '$12.99-$15.99', '$60-$99', '$250-$399', '$1,000-$1,500+'])
      expect(ranges).toContain(range);
    await close();
  });

  it('opening /pricing#business scrolls to the Business plans', async () => {
    const { page, close } = await visit('/pricing#business');
    await page.waitForFunction(() => {
      const top = document.getElementById('business')?.getBoundingClientRect().top ?? 9999;
      return top >= 0 && top < 200;
    });
    await close();
  });

  it('opened by its address in a tab that showed another page, /pricing#business still scrolls to the Business plans', async () => {
    // React Router remembered the last page's position under the name every page load's first
    // entry has, and gave it to this one instead of its anchor.
    const { page, close } = await visit('/faq');
    await page.evaluate(() => window.scrollTo(0, 300));
    await page.goto(`${site.url}/pricing#business`, { timeout: stallMs });
    await page.waitForFunction(() => {
      const top = document.getElementById('business')?.getBoundingClientRect().top ?? 9999;
      return top >= 0 && top < 200;
    });
    await close();
  });
});

describe('/faq', () => {
  it('has twelve question-and-answer cards on the spec topics, then the comparison tables', async () => {
    const { page, close } = await visit('/faq');
    const cards = page.locator('ul[aria-label="Frequently asked questions"] > li article');
    await expect(cards.count()).resolves.toBe(12);
    const questions = await cards.locator('h2').allInnerTexts();
    expect(questions).toHaveLength(12);
    const text = await page.locator('ul[aria-label="Frequently asked questions"]').innerText();
    for (const fact of [
      'unlimited devices',
      'strict no-logs policy',
      'WireGuard, and only WireGuard',
      '450-900 Mbps',
      '7-day money-back guarantee',
      'streaming',
      '10-30% lower ping',
      'QR code in the WireGuard app',
      'PayPal and crypto payments are planned',
      'up to 5 devices',
      '10, 50 or 250 users',
      'North America, Europe and Asia',
      '24 hours a day, 7 days a week',
      'Live chat is in progress',
    ]) {
      expect(text).toContain(fact);
    }
    await expect(page.locator('main table').count()).resolves.toBe(3);
    await close();
  });
});

describe('/about', () => {
  it('covers every spec section and closes with links to both pricing anchors', async () => {
    const { page, close } = await visit('/about');
    const headings = await page.locator('main h2').allInnerTexts();
    expect(headings).toEqual([
      'Our story',
      'What we are building',
      'Problems we solve',
      'Why a VPN, at home and on public networks',
      'What makes us different',
      'Our principles',
      'For businesses',
      'Performance',
      'Roadmap',
      'Support and our promise',
      'Find your plan',
    ]);
    const text = await page.locator('main').innerText();
    for (const item of [
      'More server regions',
      'Team roles and audit logs for Business',
      'Self-service key rotation',
      'Optional analytics',
      '450-900 Mbps',
      'Typical figures, not guaranteed.',
    ]) {
      expect(text).toContain(item);
    }
    const ctaLinks = await hrefs(page, 'main section[aria-labelledby="about-cta-title"] a');
    expect(ctaLinks).toEqual(['/pricing#personal', '/pricing#business']);

    await page.locator('main').getByRole('link', { name: 'Business plans' }).click();
    await page.waitForURL(`${site.url}/pricing#business`);
    await page.waitForFunction(() => {
      const top = document.getElementById('business')?.getBoundingClientRect().top ?? 9999;
      return top >= 0 && top < 200;
    });
    await close();
  });
});

describe('/contact', () => {
  it('has an email box, a message box and a Send button', async () => {
    const { page, close } = await visit('/contact');
    await expect(page.getByLabel('Your email', { exact: true }).getAttribute('type')).resolves.toBe('email');
    await expect(page.getByLabel('Message', { exact: true }).evaluate((element) => element.tagName)).resolves.toBe(
      'TEXTAREA',
    );
    await expect(page.getByRole('button', { name: 'Send', exact: true }).isEnabled()).resolves.toBe(true);
    await close();
  });
});

describe('other routes', () => {
  it('answers an unknown path with the 404 page inside the public layout', async () => {
    const { page, close } = await visit('/no-such-page');
    await expect(page.locator('h1').innerText()).resolves.toBe('Page not found');
    await expect(page.title()).resolves.toBe('Page not found — Quietwire');
    await expect(page.locator('nav[aria-label="Main"]').count()).resolves.toBe(1);
    await close();
  });

  it("shows a loading bar while a page's code is on its way, standing still when the visitor asks for less motion", async () => {
    const { page, close } = await visit('/');
    // The next page's code is held back until the bar has been looked at.
    let release = () => {};
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    await page.route(/\.js$/, async (route) => {
      await held;
      await route.continue();
    });
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'FAQ' }).click();
    const bar = page.getByRole('progressbar', { name: 'Loading page' });
    await bar.waitFor();
    const motion = () => bar.evaluate((element) => getComputedStyle(element).animationName);
    // openPage asks for reduced motion: a bar that stands still, wide enough to be seen.
    expect(await motion()).toBe('none');
    expect(await bar.evaluate((element) => element.getBoundingClientRect().width)).toBeGreaterThan(600);
    await page.emulateMedia({ reducedMotion: 'no-preference' });
    expect(await motion()).toBe('qw-progress');
    release();
    await expect.poll(() => page.locator('h1').first().innerText()).not.toBe('');
    await bar.waitFor({ state: 'detached' });
    await close();
  });

  it('lazy-loads the app routes; a signed-out visitor sees the sign-in screens and is sent to /login from protected ones', async () => {
    const { page, close } = await visit('/login');
    for (const [path, heading] of [
      ['/login', 'Sign in'],
      ['/forgot-password', 'Reset your password'],
      ['/reset-password', 'Reset link not valid'],
      ['/auth/callback', 'Verification failed'],
      ['/post-checkout', 'Create your account'],
    ] as const) {
      await page.goto(`${site.url}${path}`);
      await expect.poll(() => page.locator('h1').innerText(), { message: path }).toBe(heading);
    }
    for (const path of [
      '/dashboard',
      '/app',
      '/app/personal/overview',
      '/app/business/devices',
      '/admin',
      '/admin/overview',
    ]) {
      await page.goto(`${site.url}${path}`);
      await page.waitForURL(`${site.url}/login?next=${encodeURIComponent(path)}`);
      await expect.poll(() => page.locator('h1').innerText(), { message: path }).toBe('Sign in');
    }
    await close();
  });
});
