import { publicServersRoute, type RouteAnswer } from '@qw/contracts';
import type { Page } from 'playwright-core';
import { Compile } from 'typebox/compile';

/**
 * A fake of GET /api/servers (libs/contracts/src/http/servers.http.ts) for browser tests: answers
 * with `regions` as they are when asked (a test changes them to see the page follow), or with a
 * failure; every answer is checked against the route's response schema, drift lands in `problems`.
 */
export type PublicServers = RouteAnswer<typeof publicServersRoute>;
export type FakePublicServers = {
  answer: PublicServers;
  /** A status to answer with instead (500, 503), or null. */
  failWith: number | null;
  /** Answers wait until this resolves (to see the loading state). */
  hold: Promise<void> | null;
  requests: number;
  problems: string[];
};

const check = Compile(publicServersRoute.response[200]);

export async function installFakePublicServers(
  page: Page,
  answer: PublicServers = demoPublicServers(),
): Promise<FakePublicServers> {
  const fake: FakePublicServers = { answer, failWith: null, hold: null, requests: 0, problems: [] };
  await page.route('**/api/servers', async (route) => {
    fake.requests += 1;
    if (route.request().method() !== 'GET') fake.problems.push(`${route.request().method()} /api/servers`);
    if (fake.hold) await fake.hold;
    if (fake.failWith !== null)
      return route.fulfill({
        status: fake.failWith,
        contentType: 'application/json',
        body: JSON.stringify({ error: { code: 'unavailable', message: 'Unavailable' } }),
      });
    if (!check.Check(fake.answer))
      fake.problems.push(...[...check.Errors(fake.answer)].map((e) => `${e.instancePath}: ${e.message}`));
    return route.fulfill({ status: 200, contentType: 'application/json', body: JSON.stringify(fake.answer) });
  });
  return fake;
}

/** Three regions: two European cities (one Down), one American, Singapore with Gaming routes. */
export function demoPublicServers(): PublicServers {
  return {
    regions: [
      {
        id: 'north-america',
        label: 'North America',
        cities: [{ city: 'New York', status: 'up', load: 'medium', gaming: false }],
      },
      {
        id: 'europe',
        label: 'Europe',
        cities: [
          { city: 'Frankfurt', status: 'up', load: 'low', gaming: false },
          { city: 'Amsterdam', status: 'down', load: 'high', gaming: false },
        ],
      },
      { id: 'asia', label: 'Asia', cities: [{ city: 'Singapore', status: 'up', load: 'low', gaming: true }] },
    ],
  };
}
