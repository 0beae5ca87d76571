import {
  arpuRoute,
  arpuWindows,
  cancelsWindowRoute,
  cancelWindows,
  churnMonthlyRoute,
  cohortRetentionRoute,
  funnelRoute,
  type meRoute,
  mrrMovementsRoute,
  mrrTotalsRoute,
  newSubscriptionsWindowRoute,
  newSubscriptionWindows,
  projectionStatusRoute,
  rebuildProjectionRoute,
  type refreshRoute,
  revenueDailyRoute,
  revenueMonthlyRoute,
  revenueWindowRoute,
  revenueWindows,
  type RouteAnswer,
  shiftDay,
  shiftMonth,
  subscriptionsDailyRoute,
} from '@qw/contracts';
import type { Page, Route } from 'playwright-core';
import type { TSchema } from 'typebox';
import { Compile } from 'typebox/compile';

/**
 * A fake of the admin analytics API (libs/contracts/src/http/analytics.http.ts) for browser tests
 * of the Analytics page, answered inside the page with `page.route`. Every answer is checked
 * against the route's response schema before it is sent, and every query against the windows the
 * contract allows, so a fixture or a request that drifts from the contract fails the test
 * (`fake.problems`) instead of passing quietly.
 */

export type RevenueWindow = RouteAnswer<typeof revenueWindowRoute>;
export type CountWindow = RouteAnswer<typeof newSubscriptionsWindowRoute>;
export type MrrTotals = RouteAnswer<typeof mrrTotalsRoute>;
export type Arpu = RouteAnswer<typeof arpuRoute>;
export type RevenueDaily = RouteAnswer<typeof revenueDailyRoute>;
export type SubscriptionsDaily = RouteAnswer<typeof subscriptionsDailyRoute>;
export type RevenueMonthly = RouteAnswer<typeof revenueMonthlyRoute>;
export type MrrMovements = RouteAnswer<typeof mrrMovementsRoute>;
export type CohortRetention = RouteAnswer<typeof cohortRetentionRoute>;
export type ChurnMonthly = RouteAnswer<typeof churnMonthlyRoute>;
export type Funnel = RouteAnswer<typeof funnelRoute>;
export type ProjectionStatus = RouteAnswer<typeof projectionStatusRoute>;

/** What each endpoint answers, as a function of its `days` or `months` (already checked). */
export type AnalyticsAnswers = {
  'revenue-window': (days: number) => RevenueWindow;
  'new-subscriptions-window': (days: number) => CountWindow;
  'cancels-window': (days: number) => CountWindow;
  mrr: () => MrrTotals;
  arpu: (days: number) => Arpu;
  'revenue-daily': (days: number) => RevenueDaily;
  'subscriptions-daily': (days: number) => SubscriptionsDaily;
  'revenue-monthly': (months: number) => RevenueMonthly;
  'mrr-movements': (months: number) => MrrMovements;
  cohorts: (months: number) => CohortRetention;
  churn: (months: number) => ChurnMonthly;
  funnel: (days: number) => Funnel;
  projection: () => ProjectionStatus;
  /** POST rebuild → 202. */
  rebuild: () => ProjectionStatus;
};
export type AnalyticsEndpoint = keyof AnalyticsAnswers;

type Endpoint = {
  route: { method: string; url: string; response: Record<number, TSchema> };
  status: number;
  /** The query parameter the endpoint takes, and the values the contract allows. */
  param?: { name: 'days' | 'months'; allowed: (value: number) => boolean; fallback: number };
};

const range = (max: number) => (value: number) => Number.isInteger(value) && value >= 1 && value <= max;
const oneOf = (values: readonly number[]) => (value: number) => values.includes(value);

const endpoints: Record<AnalyticsEndpoint, Endpoint> = {
  'revenue-window': {
    route: revenueWindowRoute,
    status: 200,
    param: { name: 'days', allowed: oneOf(revenueWindows), fallback: Number.NaN },
  },
  'new-subscriptions-window': {
    route: newSubscriptionsWindowRoute,
    status: 200,
    param: { name: 'days', allowed: oneOf(newSubscriptionWindows), fallback: Number.NaN },
  },
  'cancels-window': {
    route: cancelsWindowRoute,
    status: 200,
    param: { name: 'days', allowed: oneOf(cancelWindows), fallback: Number.NaN },
  },
  mrr: { route: mrrTotalsRoute, status: 200 },
  arpu: { route: arpuRoute, status: 200, param: { name: 'days', allowed: oneOf(arpuWindows), fallback: Number.NaN } },
  'revenue-daily': {
    route: revenueDailyRoute,
    status: 200,
    param: { name: 'days', allowed: range(730), fallback: 60 },
  },
  'subscriptions-daily': {
    route: subscriptionsDailyRoute,
    status: 200,
    param: { name: 'days', allowed: range(730), fallback: 60 },
  },
  'revenue-monthly': {
    route: revenueMonthlyRoute,
    status: 200,
    param: { name: 'months', allowed: range(24), fallback: 12 },
  },
  'mrr-movements': {
    route: mrrMovementsRoute,
    status: 200,
    param: { name: 'months', allowed: range(24), fallback: 12 },
  },
  cohorts: { route: cohortRetentionRoute, status: 200, param: { name: 'months', allowed: range(12), fallback: 12 } },
  churn: { route: churnMonthlyRoute, status: 200, param: { name: 'months', allowed: range(24), fallback: 12 } },
  funnel: { route: funnelRoute, status: 200, param: { name: 'days', allowed: range(730), fallback: 60 } },
  projection: { route: projectionStatusRoute, status: 200 },
  rebuild: { route: rebuildProjectionRoute, status: 202 },
};

const validators = new Map<TSchema, ReturnType<typeof Compile>>();
function problemsOf(schema: TSchema, value: unknown): string[] {
  let validator = validators.get(schema);
  if (!validator) {
    validator = Compile(schema);
    validators.set(schema, validator);
  }
  if (validator.Check(value)) return [];
  return [...validator.Errors(value)].map((error) => `${error.instancePath || '/'}: ${error.message}`);
}

export type RecordedRequest = { endpoint: AnalyticsEndpoint; method: string; query: Record<string, string> };
export type Failure = { status: number; code: string; message: string };

export type FakeAnalyticsApi = {
  requests: RecordedRequest[];
  /** Contract problems: answers that do not match their schema, queries outside the windows. */
  problems: string[];
  /** Answers this endpoint with an error (the gateway's error shape) until `recover`. */
  fail(endpoint: AnalyticsEndpoint, failure: Failure): void;
  recover(endpoint: AnalyticsEndpoint): void;
  /** Holds this endpoint's answers until the returned function is called (to see the loading state). */
  hold(endpoint: AnalyticsEndpoint): () => void;
  /** Replaces what an endpoint answers from now on. */
  answer<E extends AnalyticsEndpoint>(endpoint: E, answer: AnalyticsAnswers[E]): void;
  requestsTo(endpoint: AnalyticsEndpoint): RecordedRequest[];
};

const json = (route: Route, status: number, body: unknown) =>
  route.fulfill({ status, contentType: 'application/json', body: JSON.stringify(body) });

/**
 * Answers /api/admin/analytics/* in `page` from `answers` (the demo figures unless given). Any
 * other /api call not faked here answers 404, so a screen cannot lean on a backend by accident.
 */
export async function installFakeAnalyticsApi(
  page: Page,
  answers: Partial<AnalyticsAnswers> = {},
): Promise<FakeAnalyticsApi> {
  const current: AnalyticsAnswers = { ...demoAnswers(), ...answers };
  const failures = new Map<AnalyticsEndpoint, Failure>();
  const held = new Map<AnalyticsEndpoint, Promise<void>>();
  const fake: FakeAnalyticsApi = {
    requests: [],
    problems: [],
    fail: (endpoint, failure) => void failures.set(endpoint, failure),
    recover: (endpoint) => void failures.delete(endpoint),
    hold: (endpoint) => {
      let release!: () => void;
      held.set(endpoint, new Promise<void>((resolve) => (release = resolve)));
      return () => {
        held.delete(endpoint);
        release();
      };
    },
    answer: (endpoint, answer) => {
      current[endpoint] = answer;
    },
    requestsTo: (endpoint) => fake.requests.filter((request) => request.endpoint === endpoint),
  };

  await page.route('**/api/admin/analytics/**', async (route) => {
    const url = new URL(route.request().url());
    const name = url.pathname.replace('/api/admin/analytics/', '') as AnalyticsEndpoint;
    const endpoint = endpoints[name];
    const method = route.request().method();
    if (!endpoint || endpoint.route.method !== method) {
      fake.problems.push(`${method} ${url.pathname} is not in the analytics contract`);
      return json(route, 404, { error: { code: 'not_found', message: 'Not found' } });
    }
    const query = Object.fromEntries(url.searchParams);
    fake.requests.push({ endpoint: name, method, query });

    let argument = Number.NaN;
    if (endpoint.param) {
      const raw = url.searchParams.get(endpoint.param.name);
      argument = raw === null ? endpoint.param.fallback : Number(raw);
      if (!endpoint.param.allowed(argument)) {
        fake.problems.push(`${name}: ${endpoint.param.name}=${raw} is not allowed by the contract`);
        return json(route, 400, { error: { code: 'validation_failed', message: `Invalid ${endpoint.param.name}` } });
      }
    }
    await held.get(name);
    const failure = failures.get(name);
    if (failure) return json(route, failure.status, { error: { code: failure.code, message: failure.message } });

    const body = (current[name] as (value: number) => unknown)(argument);
    const problems = problemsOf(endpoint.route.response[endpoint.status]!, body);
    if (problems.length > 0) {
      fake.problems.push(`${name} answer breaks the contract: ${problems.join('; ')}`);
      return json(route, 500, { error: { code: 'internal', message: 'Internal error' } });
    }
    return json(route, endpoint.status, body);
  });
  return fake;
}

export const adminUser = {
  id: '5b0d7c1e-4b9a-4d51-9a59-1f1f4c7c2a10',
  email: 'ops@quietwire.test',
};

export type Visit = { body: unknown; headers: Record<string, string> };
export type FakeSession = {
  /** /api calls nothing here answers (404), e.g. `GET /api/organizations`. */
  unexpected: string[];
  /** Every POST /api/visits, with its body and every header the browser sent (cookies included). */
  visits: Visit[];
};

/**
 * A visitor without a backend: signed out (the page-load refresh answers 401), or a signed-in
 * platform admin (a session, and GET /api/me says admin). POST /api/visits answers 204 and is
 * recorded; any other /api call answers 404 and is listed in `unexpected`.
 */
export async function installFakeSession(page: Page, who: 'admin' | 'signed-out'): Promise<FakeSession> {
  const fake: FakeSession = { unexpected: [], visits: [] };
  // Playwright tries the newest route first: the catch-all goes in before the specific ones.
  await page.route('**/api/**', async (route) => {
    fake.unexpected.push(`${route.request().method()} ${new URL(route.request().url()).pathname}`);
    await json(route, 404, { error: { code: 'not_found', message: 'Not found' } });
  });
  await page.route('**/api/visits', async (route) => {
    fake.visits.push({ body: route.request().postDataJSON(), headers: await route.request().allHeaders() });
    await route.fulfill({ status: 204 });
  });
  if (who === 'signed-out') {
    await page.route('**/api/auth/refresh', (route) =>
      json(route, 401, { error: { code: 'not_signed_in', message: 'Not signed in' } }),
    );
    return fake;
  }
  const session: RouteAnswer<typeof refreshRoute> = {
    access_token: 'fake-access-token',
    token_type: 'bearer',
    expires_in: 900,
    expires_at: Math.floor(Date.now() / 1000) + 900,
    user: { ...adminUser, account_type: 'admin', role: 'admin', is_admin: true, email_verified: true },
  };
  await page.route('**/api/auth/refresh', (route) => json(route, 200, session));
  const me: RouteAnswer<typeof meRoute> = {
    user: { ...adminUser, created_at: '2026-01-05T09:00:00.000Z' },
    profile: {
      id: adminUser.id,
      email: adminUser.email,
      full_name: 'Ops',
      avatar_url: null,
      account_type: 'admin',
      role: 'admin',
    },
    role: 'admin',
    is_admin: true,
    email_verified: true,
    mfa_enabled: false,
    org_member: false,
  };
  await page.route('**/api/me', (route) => json(route, 200, me));
  return fake;
}

/** The last day of every span in the demo figures (UTC). */
export const demoToday = '2026-11-23';

/** Revenue per window, in cents: distinct per window so a test can tell which one is shown. */
export const demoRevenueByWindow: Readonly<Record<number, { amount: number; refunded: number; invoices: number }>> = {
  1: { amount: 2398, refunded: 0, invoices: 2 },
  7: { amount: 45_678, refunded: 799, invoices: 19 },
  30: { amount: 123_456, refunded: 1_599, invoices: 61 },
  60: { amount: 250_012, refunded: 3_198, invoices: 118 },
  90: { amount: 371_111, refunded: 3_198, invoices: 170 },
  182: { amount: 702_550, refunded: 5_997, invoices: 310 },
  365: { amount: 1_234_567, refunded: 9_994, invoices: 590 },
  730: { amount: 1_800_001, refunded: 12_345, invoices: 801 },
};

const windowSpan = (days: number) => ({ days, from: shiftDay(demoToday, days - 1), to: demoToday });
const daysOf = (days: number) => Array.from({ length: days }, (_, index) => shiftDay(demoToday, days - 1 - index));
const monthsOf = (months: number) =>
  Array.from({ length: months }, (_, index) => shiftMonth(demoToday, months - 1 - index));

/** A business with a history: every series has numbers, the funnel has no visits yet. */
export function demoAnswers(): AnalyticsAnswers {
  return {
    'revenue-window': (days) => {
      const figures = demoRevenueByWindow[days]!;
      return {
        ...windowSpan(days),
        amount_cents: figures.amount,
        refunded_cents: figures.refunded,
        net_cents: figures.amount - figures.refunded,
        invoices: figures.invoices,
      };
    },
    'new-subscriptions-window': (days) => ({ ...windowSpan(days), count: { 1: 2, 7: 9, 30: 41, 60: 77 }[days] ?? 0 }),
    'cancels-window': (days) => ({ ...windowSpan(days), count: { 7: 3, 30: 12 }[days] ?? 0 }),
    mrr: () => ({
      as_of: demoToday,
      mrr_total_cents: 456_789,
      arr_total_cents: 5_481_468,
      paying_customers: 240,
    }),
    arpu: (days) => ({ ...windowSpan(days), arpu_cents: 1_904, net_cents: 121_857, paying_customers: 64 }),
    'revenue-daily': (days) => ({
      from: shiftDay(demoToday, days - 1),
      to: demoToday,
      rows: daysOf(days).map((day, index) => {
        const amount = 1_999 + ((index * 1_237) % 6_000);
        const refunded = index % 9 === 4 ? 799 : 0;
        return { day, amount_cents: amount, refunded_cents: refunded, net_cents: amount - refunded };
      }),
    }),
    'subscriptions-daily': (days) => ({
      from: shiftDay(demoToday, days - 1),
      to: demoToday,
      rows: daysOf(days).map((day, index) => ({ day, new_subs: 1 + (index % 4), cancels: index % 5 === 0 ? 1 : 0 })),
    }),
    'revenue-monthly': (months) => ({
      from: shiftMonth(demoToday, months - 1),
      to: demoToday,
      rows: monthsOf(months).flatMap((month_start, index) => [
        {
          month_start,
          plan_code: 'personal',
          amount_cents: 799 * (40 + index * 3),
          refunded_cents: index % 3 === 0 ? 799 : 0,
        },
        { month_start, plan_code: 'gaming', amount_cents: 1_199 * (25 + index * 2), refunded_cents: 0 },
        ...(index >= 4
          ? [{ month_start, plan_code: 'business10', amount_cents: 5_000 * (index - 3), refunded_cents: 0 }]
          : []),
        ...(index >= 8 ? [{ month_start, plan_code: 'business50', amount_cents: 20_000, refunded_cents: 0 }] : []),
      ]),
    }),
    'mrr-movements': (months) => {
      let mrr = 200_000;
      return {
        from: shiftMonth(demoToday, months - 1),
        to: demoToday,
        rows: monthsOf(months).map((month_start, index) => {
          const movement = {
            new_cents: 20_000 + index * 1_500,
            expansion_cents: 5_000,
            reactivation_cents: index % 4 === 0 ? 1_199 : 0,
            contraction_cents: 2_400,
            churn_cents: 8_000 + (index % 3) * 799,
          };
          const net =
            movement.new_cents +
            movement.expansion_cents +
            movement.reactivation_cents -
            movement.contraction_cents -
            movement.churn_cents;
          mrr += net;
          return {
            month_start,
            ...movement,
            net_cents: net,
            mrr_end_cents: mrr,
            new_customers: 20 + index,
            reactivated_customers: index % 4 === 0 ? 1 : 0,
            churned_customers: 8,
          };
        }),
      };
    },
    cohorts: (months) => {
      const cohorts = monthsOf(months).map((cohort_month, index) => ({ cohort_month, customers: 20 + index * 2 }));
      return {
        from: shiftMonth(demoToday, months - 1),
        to: demoToday,
        cohorts,
        rows: cohorts.flatMap((cohort, index) =>
          Array.from({ length: months - index }, (_, month_offset) => {
            const retention_pct = month_offset === 0 ? 100 : Math.round(100 * 0.9 ** month_offset * 10) / 10;
            return {
              cohort_month: cohort.cohort_month,
              month_offset,
              customers: Math.round((cohort.customers * retention_pct) / 100),
              retention_pct,
            };
          }),
        ),
      };
    },
    churn: (months) => ({
      from: shiftMonth(demoToday, months - 1),
      to: demoToday,
      rows: monthsOf(months).map((month_start, index) => {
        const customers = index === 0 ? 0 : 100 + index * 10;
        const churned = index === 0 ? 0 : 5 + (index % 3);
        const mrr = index === 0 ? 0 : 200_000 + index * 10_000;
        const lost = index === 0 ? 0 : 8_000 + (index % 3) * 799;
        return {
          month_start,
          churn_pct: customers === 0 ? null : Math.round((churned / customers) * 1000) / 10,
          revenue_churn_pct: mrr === 0 ? null : Math.round(((lost + 2_400) / mrr) * 1000) / 10,
          customers_at_start: customers,
          churned_customers: churned,
          mrr_at_start_cents: mrr,
          churned_cents: lost,
          contraction_cents: index === 0 ? 0 : 2_400,
        };
      }),
    }),
    funnel: (days) => ({
      from: shiftDay(demoToday, days - 1),
      to: demoToday,
      has_visits: false,
      rows: daysOf(days).map((day, index) => ({ day, visits: 0, signups: 2 + (index % 5), first_paid: index % 3 })),
      top_paths: [],
    }),
    projection: () => ({
      live: {
        generation: 2,
        definition: 1,
        status: 'live',
        started_at: '2026-11-20T08:00:00.000Z',
        live_since: '2026-11-20T08:04:12.000Z',
        pending_events: 0,
      },
      building: null,
    }),
    rebuild: () => ({
      live: {
        generation: 2,
        definition: 1,
        status: 'live',
        started_at: '2026-11-20T08:00:00.000Z',
        live_since: '2026-11-20T08:04:12.000Z',
        pending_events: 0,
      },
      building: {
        generation: 3,
        definition: 1,
        status: 'building',
        started_at: '2026-11-23T10:00:00.000Z',
        live_since: null,
        pending_events: 4_210,
      },
    }),
  };
}

/** A business that has just opened: every figure zero, every series empty or all zeros, no visits. */
export function emptyAnswers(): AnalyticsAnswers {
  const demo = demoAnswers();
  return {
    ...demo,
    'revenue-window': (days) => ({
      ...windowSpan(days),
      amount_cents: 0,
      refunded_cents: 0,
      net_cents: 0,
      invoices: 0,
    }),
    'new-subscriptions-window': (days) => ({ ...windowSpan(days), count: 0 }),
    'cancels-window': (days) => ({ ...windowSpan(days), count: 0 }),
    mrr: () => ({ as_of: demoToday, mrr_total_cents: 0, arr_total_cents: 0, paying_customers: 0 }),
    arpu: (days) => ({ ...windowSpan(days), arpu_cents: null, net_cents: 0, paying_customers: 0 }),
    'revenue-daily': (days) => ({
      from: shiftDay(demoToday, days - 1),
      to: demoToday,
      rows: daysOf(days).map((day) => ({ day, amount_cents: 0, refunded_cents: 0, net_cents: 0 })),
    }),
    'subscriptions-daily': (days) => ({
      from: shiftDay(demoToday, days - 1),
      to: demoToday,
      rows: daysOf(days).map((day) => ({ day, new_subs: 0, cancels: 0 })),
    }),
    'revenue-monthly': (months) => ({ from: shiftMonth(demoToday, months - 1), to: demoToday, rows: [] }),
    'mrr-movements': (months) => ({
      from: shiftMonth(demoToday, months - 1),
      to: demoToday,
      rows: monthsOf(months).map((month_start) => ({
        month_start,
        new_cents: 0,
        expansion_cents: 0,
        contraction_cents: 0,
        churn_cents: 0,
        reactivation_cents: 0,
        net_cents: 0,
        mrr_end_cents: 0,
        new_customers: 0,
        reactivated_customers: 0,
        churned_customers: 0,
      })),
    }),
    cohorts: (months) => ({ from: shiftMonth(demoToday, months - 1), to: demoToday, cohorts: [], rows: [] }),
    churn: (months) => ({
      from: shiftMonth(demoToday, months - 1),
      to: demoToday,
      rows: monthsOf(months).map((month_start) => ({
        month_start,
        churn_pct: null,
        revenue_churn_pct: null,
        customers_at_start: 0,
        churned_customers: 0,
        mrr_at_start_cents: 0,
        churned_cents: 0,
        contraction_cents: 0,
      })),
    }),
    funnel: (days) => ({
      from: shiftDay(demoToday, days - 1),
      to: demoToday,
      has_visits: false,
      rows: daysOf(days).map((day) => ({ day, visits: 0, signups: 0, first_paid: 0 })),
      top_paths: [],
    }),
  };
}
