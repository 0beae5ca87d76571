/**
 * Two years of demo customers, made through the real services: each signs up (identity's demo
 * sign-up, on a past day), buys a plan through the test checkout on a test clock started on that
 * day, claims it, and then lives through the clock: renewals, upgrades and downgrades, cancels
 * (some within the 7-day money back), comebacks with a new plan. Every figure of the Analytics
 * page then comes from billing's and identity's own events. The gateway's visit counts for the
 * past days are published as the gateway sends them (it only ever counts today's).
 *
 * Used by `make seed-demo` (scripts/seed-demo-history.ts) and the browser test of the page.
 */
import {
  advanceClockRpc,
  type Caller,
  changePlanRpc,
  claimCheckoutRpc,
  countedPagePaths,
  createCheckoutRpc,
  demoSignUpRpc,
  type PlanCode,
  startClockRpc,
  testCheckoutInfoRpc,
  testCheckoutPayRpc,
  testPortalCancelRpc,
  visitsCounted,
} from '@qw/contracts';
import { type BusConnection, createEnvelope, RpcClient } from '@qw/platform/bus';

const day = 86_400_000;

type Step = { at: number; kind: 'upgrade' | 'downgrade' | 'cancel' };
export type DemoStory = {
  name: string;
  email: string;
  start: number;
  plan: PlanCode;
  steps: Step[];
  /** Buys again after the subscription ended (a reactivation). */
  comeback?: { at: number; plan: PlanCode };
};

/** Deterministic randomness: the same stories every time for the same day. */
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

const firstNames = [
  'ada',
  'ben',
  'cy',
  'dee',
  'eli',
  'fay',
  'gus',
  'hal',
  'ivy',
  'jo',
  'kai',
  'lea',
  'max',
  'nia',
  'oz',
];
const upgradeOf: Partial<Record<PlanCode, PlanCode>> = {
  personal: 'gaming',
  business10: 'business50',
  business50: 'business250',
};
const downgradeOf: Partial<Record<PlanCode, PlanCode>> = { gaming: 'personal' };

function pickPlan(r: number): PlanCode {
  if (r < 0.52) return 'personal';
  if (r < 0.82) return 'gaming';
  if (r < 0.94) return 'business10';
  if (r < 0.99) return 'business50';
  return 'business250';
}

/**
 * The customers of the last two years, more of them each month as the service grows. A few
 * cancel within the first week (money back), some each month later; some upgrade, a few
 * downgrade; some of those who left come back months later.
 */
export function demoStories(now: number, options: { customers?: number; seed?: number } = {}): DemoStory[] {
  const rand = random(options.seed ?? 7);
  const customers = options.customers ?? 160;
  const horizon = 728 * day;
  const stories: DemoStory[] = [];
  for (let i = 0; i < customers; i++) {
    // Growth: later days are likelier (the square root puts more starts near now).
    const start = now - horizon + Math.floor(Math.sqrt(rand()) * (horizon - 2 * day));
    const plan = pickPlan(rand());
    const name = `${firstNames[i % firstNames.length]}${Math.floor(i / firstNames.length) + 1}`;
    const steps: Step[] = [];
    let comeback: DemoStory['comeback'];
    const roll = rand();
    if (roll < 0.05) {
      steps.push({ at: start + (1 + rand() * 4) * day, kind: 'cancel' });
    } else {
      let t = start;
      let current = plan;
      for (;;) {
        t += (20 + rand() * 70) * day;
        if (t > now - day) break;
        const r = rand();
        if (r < 0.12) {
          steps.push({ at: t, kind: 'cancel' });
          if (rand() < 0.35) {
            const at = t + (45 + rand() * 150) * day;
            if (at < now - 2 * day) comeback = { at, plan: current.startsWith('business') ? current : 'personal' };
          }
          break;
        }
        if (r < 0.2 && upgradeOf[current]) {
          steps.push({ at: t, kind: 'upgrade' });
          current = upgradeOf[current]!;
        } else if (r < 0.23 && downgradeOf[current]) {
          steps.push({ at: t, kind: 'downgrade' });
          current = downgradeOf[current]!;
        }
      }
    }
    stories.push({ name, email: `${name}@demo.quietwire.test`, start, plan, steps, ...(comeback ? { comeback } : {}) });
  }
  return stories.sort((a, b) => a.start - b.start);
}

export type DemoSeedOptions = {
  /** A connection that may ask billing's and identity's demo and test-clock RPCs and publish the gateway's counts. */
  bus: BusConnection;
  /** Signs a caller assertion for a demo customer, as the gateway would for them signed in. */
  signCaller: (caller: Caller) => Caller;
  now?: number;
  customers?: number;
  /** Sign-ups that never buy, over the last 60 days. */
  browsers?: number;
  /** Past days of visit counts (729: the two years before today). */
  visitDays?: number;
  concurrency?: number;
  log?: (line: string) => void;
};

export type DemoSeedResult = { customers: number; browsers: number; visitDays: number; seconds: number };

export async function seedDemoHistory(options: DemoSeedOptions): Promise<DemoSeedResult> {
  const started = Date.now();
  const now = options.now ?? Date.now() - 10 * 60_000;
  const rpc = new RpcClient(options.bus, 30_000);
  const stories = demoStories(now, { customers: options.customers ?? 160 });
  const log = options.log ?? (() => undefined);

  const daysUntil = (clockNow: number, at: number) => Math.max(0, (Math.min(at, now) - clockNow) / day);
  /** Identity learns of a new organization from billing's event a moment after the claim. */
  const soon = async <T>(work: () => Promise<T>): Promise<T> => {
    for (let attempt = 0; ; attempt++) {
      try {
        return await work();
      } catch (error) {
        const code = (error as { code?: string }).code;
        if (attempt >= 50 || (code !== 'forbidden' && code !== 'not_found')) throw error;
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    }
  };

  async function buy(story: DemoStory, caller: Caller, plan: PlanCode, at: number, orgId?: string) {
    const checkout = await rpc.request(createCheckoutRpc, { plan_code: plan, address_key: `demo:${story.name}` });
    const info = await rpc.request(testCheckoutInfoRpc, { session_id: checkout.session_id });
    const clockId = info.test_clock_id!;
    await rpc.request(startClockRpc, { clock_id: clockId, at: new Date(at).toISOString() });
    await rpc.request(testCheckoutPayRpc, {
      session_id: checkout.session_id,
      email: story.email,
      card_number: '4242424242424242',
    });
    const claimed = await soon(() =>
      rpc.request(
        claimCheckoutRpc,
        { session_id: checkout.session_id, email: story.email, ...(orgId ? { org_id: orgId } : {}) },
        caller,
      ),
    );
    return { clockId, clockNow: at, subscriptionId: claimed.subscription_id, orgId: claimed.org_id };
  }

  async function live(story: DemoStory): Promise<void> {
    const registered = story.start - (10 + Math.floor((story.start / 1000) % 240)) * 60_000;
    const { user_id } = await rpc.request(demoSignUpRpc, {
      email: story.email,
      full_name: story.name.replace(/\d+$/, '').replace(/^./, (c) => c.toUpperCase()),
      registered_at: new Date(registered).toISOString(),
    });
    const caller = options.signCaller({
      userId: user_id,
      accountType: 'personal',
      isAdmin: false,
      emailVerified: true,
    });
    let sub = await buy(story, caller, story.plan, story.start);
    let plan = story.plan;
    const advance = async (at: number) => {
      const days = daysUntil(sub.clockNow, at);
      if (days <= 0) return;
      const moved = await rpc.request(advanceClockRpc, { clock_id: sub.clockId, days });
      sub.clockNow = new Date(moved.now).getTime();
    };
    let ended = false;
    for (const step of story.steps) {
      await advance(step.at);
      if (step.kind === 'cancel') {
        // An organization's plan is cancelled by its owners, whom identity knows a moment after the claim.
        await soon(() => rpc.request(testPortalCancelRpc, { subscription_id: sub.subscriptionId }, caller));
        ended = true;
        break;
      }
      const to = step.kind === 'upgrade' ? upgradeOf[plan]! : downgradeOf[plan]!;
      await soon(() => rpc.request(changePlanRpc, { subscription_id: sub.subscriptionId, plan_code: to }, caller));
      plan = to;
    }
    if (ended && story.comeback) {
      // The cancel runs to the period's end; coming back is a new purchase later on.
      await advance(story.comeback.at);
      sub = await buy(story, caller, story.comeback.plan, story.comeback.at, sub.orgId ?? undefined);
    }
    await advance(now);
  }

  let next = 0;
  let done = 0;
  const worker = async () => {
    for (;;) {
      const story = stories[next++];
      if (!story) return;
      await live(story);
      done++;
      if (done % 20 === 0) log(`  demo history: ${done} of ${stories.length} customers`);
    }
  };
  await Promise.all(Array.from({ length: options.concurrency ?? 6 }, worker));

  // People who signed up and never bought, over the last 60 days.
  const rand = random(11);
  const browsers = options.browsers ?? 60;
  for (let i = 0; i < browsers; i++) {
    const at = now - Math.floor(rand() * 60 * day);
    await rpc.request(demoSignUpRpc, {
      email: `visitor${i + 1}@demo.quietwire.test`,
      registered_at: new Date(at).toISOString(),
    });
  }

  // What the gateway counted on the past days (today's visits are counted live).
  let visitDays = 0;
  for (let back = options.visitDays ?? 729; back >= 1; back--) {
    const dayKey = new Date(now - back * day).toISOString().slice(0, 10);
    const growth = 1 + (729 - back) / 180;
    for (const path of countedPagePaths) {
      const base = path === '/' ? 120 : path === '/pricing' ? 45 : 12;
      const views = Math.max(1, Math.round(base * growth * (0.7 + rand() * 0.6)));
      const envelope = createEnvelope(visitsCounted, { day: dayKey, path, views }, new Date(`${dayKey}T23:59:00Z`));
      await options.bus.js.publish(options.bus.ns.subject(visitsCounted.subject), JSON.stringify(envelope), {
        msgID: envelope.id,
      });
    }
    visitDays++;
  }
  return { customers: stories.length, browsers, visitDays, seconds: (Date.now() - started) / 1000 };
}
