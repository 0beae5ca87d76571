import { describe, expect, it } from 'vitest';
import type Stripe from 'stripe';
import { findPlan } from '@qw/contracts';
import { StripePlanChanges } from '../src/providers/stripe-plan-changes.ts';

/**
 * Downgrades at Stripe under stable idempotency keys, against an in-memory stand-in for the few
 * Stripe calls they make. Like Stripe, it answers a repeated key with the first answer and
 * changes nothing, so a key reused for a different change would show as a downgrade that never
 * happened.
 */
type Schedule = { id: string; status: string; waiting: string | undefined };

function stripeStandIn() {
  const schedules = new Map<string, Schedule>();
  const replays = new Map<string, unknown>();
  const writes: string[] = [];
  const subscription = { id: 'sub_1', schedule: null as string | null };
  const scheduleView = (s: Schedule) => ({
    id: s.id,
    status: s.status,
    current_phase: { start_date: 1_790_000_000, end_date: 1_792_592_000 },
    phases: [
      { start_date: 1_790_000_000, metadata: {} },
      ...(s.waiting ? [{ start_date: 1_792_592_000, metadata: { plan_code: s.waiting } }] : []),
    ],
  });
  const once = <T>(what: string, key: string | undefined, run: () => T): T => {
    const replayKey = `${what} ${key}`;
    if (key && replays.has(replayKey)) return structuredClone(replays.get(replayKey)) as T;
    writes.push(what);
    const answer = run();
    if (key) replays.set(replayKey, structuredClone(answer));
    return answer;
  };
  const stripe = {
    subscriptions: {
      retrieve: async () => ({
        ...subscription,
        items: {
          data: [
            {
              quantity: 1,
              price: { id: 'price_business250_monthly' },
              current_period_start: 1_790_000_000,
              current_period_end: 1_792_592_000,
            },
          ],
        },
      }),
    },
    subscriptionSchedules: {
      create: async (_params: unknown, options: { idempotencyKey?: string }) =>
        once('create', options.idempotencyKey, () => {
          const made: Schedule = { id: `sched_${schedules.size + 1}`, status: 'active', waiting: undefined };
          schedules.set(made.id, made);
          subscription.schedule = made.id;
          return scheduleView(made);
        }),
      retrieve: async (id: string) => scheduleView(schedules.get(id)!),
      update: async (
        id: string,
        params: { phases: Array<{ metadata?: { plan_code?: string } }> },
        options: { idempotencyKey?: string },
      ) =>
        once(`update ${id}`, options.idempotencyKey, () => {
          const schedule = schedules.get(id)!;
          schedule.waiting = params.phases[1]?.metadata?.plan_code;
          return scheduleView(schedule);
        }),
      release: async (id: string, _params: unknown, options: { idempotencyKey?: string }) =>
        once(`release ${id}`, options.idempotencyKey, () => {
          const schedule = schedules.get(id)!;
          schedule.status = 'released';
          if (subscription.schedule === id) subscription.schedule = null;
          return scheduleView(schedule);
        }),
    },
  };
  const waitingAtStripe = () => {
    const attached = subscription.schedule ? schedules.get(subscription.schedule) : undefined;
    return attached?.status === 'active' ? attached.waiting : undefined;
  };
  return { changes: new StripePlanChanges(stripe as unknown as Stripe), writes, waitingAtStripe, schedules };
}

/** A downgrade of sub_1 from Business 250 as billing asks for it: the key names subscription, plan and period. */
const downgrade = (changes: StripePlanChanges, planCode: string) =>
  changes.changeAtRenewal({
    providerSubscriptionId: 'sub_1',
    plan: findPlan(planCode)!,
    currentPlanCode: 'business250',
    idempotencyKey: `downgrade-s1-${planCode}-1792592000000`,
  });

describe('downgrades at Stripe under stable idempotency keys', () => {
  it('the same downgrade asked again makes no second change', async () => {
    const stripe = stripeStandIn();
    const first = await downgrade(stripe.changes, 'business50');
    const writes = stripe.writes.length;
    const again = await downgrade(stripe.changes, 'business50');
    expect(again.scheduleId).toBe(first.scheduleId);
    expect(stripe.writes.length).toBe(writes);
    expect(stripe.waitingAtStripe()).toBe('business50');
  });

  it('another plan while one waits, and back and forth in one period: Stripe always waits with the last one asked', async () => {
    const stripe = stripeStandIn();
    for (const planCode of ['business50', 'business10', 'business50', 'business10', 'business50']) {
      await downgrade(stripe.changes, planCode);
      expect(stripe.waitingAtStripe(), planCode).toBe(planCode);
    }
    expect([...stripe.schedules.values()].filter((s) => s.status === 'active')).toHaveLength(1);
  });

  it('called off (released) and asked again in the same period: a new schedule, not the released one', async () => {
    const stripe = stripeStandIn();
    const first = await downgrade(stripe.changes, 'business50');
    await stripe.changes.release(first.scheduleId);
    const again = await downgrade(stripe.changes, 'business50');
    expect(again.scheduleId).not.toBe(first.scheduleId);
    expect(stripe.waitingAtStripe()).toBe('business50');
    // And once more: the chain of keys goes on past each released schedule.
    await stripe.changes.release(again.scheduleId);
    const third = await downgrade(stripe.changes, 'business50');
    expect(new Set([first.scheduleId, again.scheduleId, third.scheduleId]).size).toBe(3);
    expect(stripe.waitingAtStripe()).toBe('business50');
  });
});
