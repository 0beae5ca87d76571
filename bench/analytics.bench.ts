/**
 * Analytics at scale: a history of ~100,000 subscriptions and ~1,000,000 paid invoices over two
 * years (plus refunds, upgrades, cancels, sign-ups and visits) published as billing's, identity's
 * and the gateway's events; the analytics service then builds its projection from the streams'
 * whole history (what a rebuild does), and the Analytics page's requests are timed through the
 * gateway over HTTP as a platform admin.
 */
import { randomUUID } from 'node:crypto';
import {
  analyticsPageRequests,
  billingEvents,
  type EventContract,
  identityEvents,
  invoicePaid,
  refundIssued,
  subscriptionActivated,
  subscriptionCanceled,
  subscriptionUpdated,
  userRegistered,
  visitsCounted,
} from '@qw/contracts';
import { analyticsService } from '@qw/analytics';
import { createEnvelope, ensureStream, type BusConnection } from '@qw/platform';
import { eventually } from '@qw/testkit';
import type { Static, TSchema } from 'typebox';
import { Client, confirmEmail, startStack } from '../services/gateway/test/support/stack.ts';
import { listenOnLoopback } from './lib/listen.ts';
import type { Bench, BenchFigure } from './lib/figures.ts';

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? Number.NaN;
}

/** A small deterministic generator, so every run publishes the same history. */
function random(seed: number) {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const plans = [
  { code: 'personal', cents: 799, share: 0.55 },
  { code: 'gaming', cents: 1199, share: 0.3 },
  { code: 'business10', cents: 5000, share: 0.1 },
  { code: 'business50', cents: 20000, share: 0.04 },
  { code: 'business250', cents: 85000, share: 0.01 },
];

type Sub = {
  id: string;
  owner: string;
  plan: (typeof plans)[number];
  start: number;
  /** Month index of the next renewal. */
  next: number;
  ended: boolean;
};

class Publisher {
  private inFlight: Promise<unknown>[] = [];
  published = 0;
  constructor(private readonly bus: BusConnection) {}

  async publish<S extends TSchema>(contract: EventContract<S>, data: Static<S>, at: Date): Promise<void> {
    const envelope = createEnvelope(contract, data, at);
    const subject = this.bus.ns.subject(contract.subject);
    const body = JSON.stringify(envelope);
    // On a busy machine an acknowledgement can take longer than the client's 5 s: wait longer,
    // and publish again on a timeout (the message id makes a second copy a no-op).
    const send = async (attempt: number): Promise<unknown> => {
      try {
        return await this.bus.js.publish(subject, body, { msgID: envelope.id, timeout: 30_000 });
      } catch (error) {
        if (attempt >= 5) throw error;
        return send(attempt + 1);
      }
    };
    this.inFlight.push(send(1));
    this.published++;
    if (this.inFlight.length >= 2000) await this.flush();
  }

  async flush(): Promise<void> {
    const pending = this.inFlight;
    this.inFlight = [];
    await Promise.all(pending);
  }
}

export async function runAnalyticsBench(options: { subscriptions?: number; samples?: number } = {}) {
  const subscriptions = options.subscriptions ?? 100_000;
  const samples = options.samples ?? 40;
  const stack = await startStack({ label: 'benchanalytics', adminEmails: ['ops@quietwire.test'] });
  try {
    const baseUrl = await listenOnLoopback(stack);
    const bus = await stack.connectAdmin();
    await ensureStream(bus, 'billing', billingEvents);
    await ensureStream(bus, 'identity', identityEvents);
    await ensureStream(bus, 'gateway', [visitsCounted]);
    const publisher = new Publisher(bus);
    const rand = random(20261123);
    const day = 86_400_000;
    const now = Date.now();
    const origin = now - 730 * day;
    const monthAt = (start: number, months: number) => {
      const date = new Date(start);
      date.setUTCMonth(date.getUTCMonth() + months);
      return date.getTime();
    };
    const pick = () => {
      let r = rand();
      for (const plan of plans) {
        r -= plan.share;
        if (r <= 0) return plan;
      }
      return plans[0]!;
    };
    const state = (sub: Sub, at: number, extra: Record<string, unknown> = {}) => ({
      subscriptionId: sub.id,
      userId: sub.owner,
      orgId: sub.plan.code.startsWith('business') ? sub.owner : null,
      planCode: sub.plan.code,
      status: 'active',
      currentPeriodEnd: null,
      cancelAtPeriodEnd: false,
      startedAt: new Date(sub.start).toISOString(),
      effectiveAt: new Date(at).toISOString(),
      monthlyCents: sub.plan.cents,
      ...extra,
    });
    const pay = async (sub: Sub, at: number, cents: number, planCode = sub.plan.code) => {
      const when = new Date(at).toISOString();
      const invoiceId = randomUUID();
      await publisher.publish(
        invoicePaid,
        {
          invoiceId,
          subscriptionId: sub.id,
          userId: sub.owner,
          orgId: sub.plan.code.startsWith('business') ? sub.owner : null,
          planCode,
          amountCents: cents,
          currency: 'USD',
          periodStart: when,
          periodEnd: when,
          paidAt: when,
        },
        new Date(at),
      );
      return invoiceId;
    };

    const started = Date.now();
    let invoices = 0;
    let refunds = 0;
    let upgrades = 0;
    let cancels = 0;
    const subs: Sub[] = [];
    for (let i = 0; i < subscriptions; i++) {
      const start = origin + Math.floor(rand() * 730 * day);
      const owner = rand() < 0.08 && subs.length > 0 ? subs[Math.floor(rand() * subs.length)]!.owner : randomUUID();
      subs.push({ id: randomUUID(), owner, plan: pick(), start, next: 0, ended: false });
    }
    subs.sort((a, b) => a.start - b.start);
    // Month by month, so each subscription's events go out in order and the stream reads like time.
    for (let month = 0; month <= 24; month++) {
      const monthEnd = monthAt(origin, month + 1);
      for (const sub of subs) {
        if (sub.ended || sub.start >= monthEnd) continue;
        for (;;) {
          const at = monthAt(sub.start, sub.next);
          if (at >= monthEnd || at > now) break;
          if (sub.next === 0) {
            await publisher.publish(
              userRegistered,
              { userId: sub.owner, accountType: 'personal', registeredAt: new Date(sub.start - 600_000).toISOString() },
              new Date(sub.start - 600_000),
            );
            const first = await pay(sub, at, sub.plan.cents);
            invoices++;
            await publisher.publish(subscriptionActivated, state(sub, at + 60_000), new Date(at + 60_000));
            if (rand() < 0.03) {
              const back = at + 2 * day;
              await publisher.publish(
                refundIssued,
                {
                  refundId: randomUUID(),
                  invoiceId: first,
                  subscriptionId: sub.id,
                  userId: sub.owner,
                  orgId: null,
                  amountCents: sub.plan.cents,
                  issuedAt: new Date(back).toISOString(),
                },
                new Date(back),
              );
              await publisher.publish(
                subscriptionCanceled,
                { ...state(sub, back, { status: 'canceled' }), canceledAt: new Date(back).toISOString() },
                new Date(back),
              );
              refunds++;
              cancels++;
              sub.ended = true;
              break;
            }
          } else if (rand() < 0.02) {
            await publisher.publish(
              subscriptionCanceled,
              { ...state(sub, at, { status: 'canceled' }), canceledAt: new Date(at).toISOString() },
              new Date(at),
            );
            cancels++;
            sub.ended = true;
            break;
          } else {
            await pay(sub, at, sub.plan.cents);
            invoices++;
            if (sub.plan.code === 'personal' && rand() < 0.01) {
              const upgradeAt = at + 10 * day;
              sub.plan = plans[1]!;
              await pay(sub, upgradeAt, 258, 'gaming');
              invoices++;
              await publisher.publish(subscriptionUpdated, state(sub, upgradeAt), new Date(upgradeAt));
              upgrades++;
            }
          }
          sub.next++;
        }
      }
    }
    for (let d = 0; d < 730; d++) {
      const dayKey = new Date(origin + d * day).toISOString().slice(0, 10);
      for (const path of ['/', '/pricing', '/faq', '/about', '/contact', '/support'] as const)
        await publisher.publish(
          visitsCounted,
          { day: dayKey, path, views: 1 + Math.floor(rand() * 400) },
          new Date(origin + d * day),
        );
    }
    await publisher.flush();
    const publishSeconds = (Date.now() - started) / 1000;

    // Identity follows billing's subscription events too: let it catch up first, so the
    // projection's figures are not shared with another service's replay of the same history.
    const othersCaughtUp = async () => {
      for (const owner of ['billing', 'identity']) {
        for await (const info of await bus.jsm.consumers.list(bus.ns.stream(owner))) {
          if (info.num_pending + info.num_ack_pending > 0) return false;
        }
      }
      return true;
    };
    await eventually(othersCaughtUp, 3_600_000, 1000);

    // The projection's first generation reads the whole history: the same work as a rebuild.
    const buildStarted = Date.now();
    const definition = analyticsService({ checkEveryMs: 500 });
    const { launchService } = await import('@qw/testkit');
    stack.services.analytics = await launchService(definition, { database: stack.database, bus: stack.testBus });
    const signup = new Client(stack.app, '198.51.100.7');
    await signup.call('POST', '/api/auth/signup', { email: 'ops@quietwire.test', password: 'correct horse battery' });
    const admin = await confirmEmail(stack, 'ops@quietwire.test', 'correct horse battery', signup);
    const token = admin.accessToken!;
    const get = async (path: string): Promise<any> => {
      const response = await fetch(new URL(`/api/admin/analytics/${path}`, baseUrl), {
        headers: { authorization: `Bearer ${token}` },
      });
      if (!response.ok) throw new Error(`${path}: ${response.status} ${await response.text()}`);
      return response.json();
    };
    await eventually(
      async () => {
        const status = await get('projection');
        return status.live?.pending_events === 0 && status.building === null;
      },
      3_600_000,
      1000,
    );
    const buildSeconds = (Date.now() - buildStarted) / 1000;

    // An operator's rebuild beside the live generation: the same history read again.
    const rebuildStarted = Date.now();
    const started2 = await fetch(new URL('/api/admin/analytics/rebuild', baseUrl), {
      method: 'POST',
      headers: { authorization: `Bearer ${token}` },
    });
    if (started2.status !== 202) throw new Error(`rebuild: ${started2.status} ${await started2.text()}`);
    await eventually(
      async () => {
        const status = await get('projection');
        return status.building === null && status.live?.generation === 2;
      },
      3_600_000,
      500,
    );
    const rebuildSeconds = (Date.now() - rebuildStarted) / 1000;

    // The page's requests, as the browser makes them on opening it (default windows).
    const pageRequests = analyticsPageRequests;
    const perRoute: Array<{ path: string; p50: number; p95: number }> = [];
    for (const path of [...pageRequests, 'revenue-window?days=730', 'revenue-daily?days=730']) {
      await get(path);
      const times: number[] = [];
      for (let i = 0; i < samples; i++) {
        const t0 = performance.now();
        await get(path);
        times.push(performance.now() - t0);
      }
      times.sort((a, b) => a - b);
      perRoute.push({ path, p50: percentile(times, 50), p95: percentile(times, 95) });
    }
    const pageTimes: number[] = [];
    for (let i = 0; i < samples; i++) {
      const t0 = performance.now();
      await Promise.all(pageRequests.map(get));
      pageTimes.push(performance.now() - t0);
    }
    pageTimes.sort((a, b) => a - b);
    const mrr = await get('mrr');
    const status = await get('projection');
    return {
      subscriptions,
      invoices,
      refunds,
      upgrades,
      cancels,
      events: publisher.published,
      publishSeconds,
      buildSeconds,
      buildEventsPerSecond: Math.round(publisher.published / buildSeconds),
      rebuildSeconds,
      rebuildEventsPerSecond: Math.round(publisher.published / rebuildSeconds),
      perRoute,
      page: { p50: percentile(pageTimes, 50), p95: percentile(pageTimes, 95) },
      mrrCents: mrr.mrr_total_cents as number,
      payingCustomers: mrr.paying_customers as number,
      generation: status.live.generation as number,
    };
  } finally {
    await stack.stop();
  }
}

export const analyticsBench: Bench = {
  name: 'analytics',
  title: 'analytics: a two-year history through the projection, the Analytics page through the gateway',
  async run(size) {
    const result = await runAnalyticsBench(
      size === 'tiny'
        ? { subscriptions: 300, samples: 5 }
        : {
            subscriptions: Number(process.env.BENCH_SUBSCRIPTIONS ?? 100_000),
            samples: Number(process.env.BENCH_SAMPLES ?? 40),
          },
    );
    const history = `${result.subscriptions} subscriptions, ${result.invoices} paid invoices, ${result.events} events`;
    const figures: BenchFigure[] = [
      {
        figure: 'history published to JetStream',
        value: result.events / result.publishSeconds,
        unit: 'events/s',
        note: history,
      },
      {
        figure: "first projection built from the streams' history",
        value: result.buildEventsPerSecond,
        unit: 'events/s',
        note: `${history}; ${result.buildSeconds.toFixed(1)} s`,
      },
      {
        figure: 'full rebuild beside the live projection',
        value: result.rebuildEventsPerSecond,
        unit: 'events/s',
        note: `${history}; ${result.rebuildSeconds.toFixed(1)} s`,
      },
    ];
    for (const route of result.perRoute)
      figures.push({
        figure: `GET /api/admin/analytics/${route.path}: p95`,
        value: route.p95,
        unit: 'ms',
        target: { on: 'value', comparison: '<', limit: 50 },
        note: `p50 ${route.p50.toFixed(1)} ms`,
      });
    figures.push({
      figure: "the page's requests together: p95",
      value: result.page.p95,
      unit: 'ms',
      target: { on: 'value', comparison: '<', limit: 300 },
      note: `p50 ${result.page.p50.toFixed(1)} ms`,
    });
    return figures;
  },
};
