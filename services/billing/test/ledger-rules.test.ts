import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { subscriptionTransition } from '../src/subscriptions/ledger.ts';
import {
  checkoutPayment,
  normalizeStatus,
  planFromPrice,
  subscriptionEventStatus,
} from '../src/webhooks/stripe-rules.ts';

const t = (seconds: number) => new Date(1_790_000_000_000 + seconds * 1000);

describe('which Stripe event moves a subscription to which state', () => {
  it('names Stripe statuses in our words', () => {
    expect(normalizeStatus('trialing')).toBe('active');
    expect(normalizeStatus('unpaid')).toBe('canceled');
    expect(normalizeStatus('incomplete_expired')).toBe('canceled');
    for (const kept of ['active', 'past_due', 'incomplete', 'canceled']) expect(normalizeStatus(kept)).toBe(kept);
    expect(subscriptionEventStatus('customer.subscription.deleted', 'active')).toBe('canceled');
    expect(subscriptionEventStatus('customer.subscription.updated', 'past_due')).toBe('past_due');
  });

  it('applies a newer state, ignores an older one, and never revives a canceled plan', () => {
    const active = { status: 'active', providerUpdatedAt: t(10) };
    expect(subscriptionTransition(active, { status: 'past_due', observedAt: t(20) })).toEqual({
      apply: true,
      becameCanceled: false,
    });
    expect(subscriptionTransition(active, { status: 'past_due', observedAt: t(5) }).apply).toBe(false);
    expect(subscriptionTransition(active, { status: 'past_due', observedAt: t(10) }).apply).toBe(true);
    expect(subscriptionTransition(active, { status: 'canceled', observedAt: t(20) })).toEqual({
      apply: true,
      becameCanceled: true,
    });
    const canceled = { status: 'canceled', providerUpdatedAt: t(10) };
    expect(subscriptionTransition(canceled, { status: 'active', observedAt: t(99) }).apply).toBe(false);
    expect(subscriptionTransition(canceled, { status: 'canceled', observedAt: t(99) })).toEqual({
      apply: true,
      becameCanceled: false,
    });
    expect(
      subscriptionTransition({ status: 'incomplete', providerUpdatedAt: null }, { status: 'active', observedAt: t(0) }),
    ).toEqual({ apply: true, becameCanceled: false });
  });

  it('ends in the state of the latest event, whatever order the events arrive in', () => {
    // What Stripe can send about one subscription: live states, and at most an end after them.
    const history = fc.uniqueArray(fc.integer({ min: 0, max: 10_000 }), { minLength: 1, maxLength: 8 }).chain((times) =>
      fc
        .tuple(
          fc.array(fc.constantFrom('active', 'past_due', 'incomplete'), {
            minLength: times.length,
            maxLength: times.length,
          }),
          fc.boolean(),
        )
        .map(([statuses, ends]) => {
          const sorted = [...times].sort((a, b) => a - b);
          return sorted.map((at, i) => ({
            at,
            status: ends && i === sorted.length - 1 ? 'canceled' : statuses[i]!,
          }));
        }),
    );
    const arrivals = history.chain((events) =>
      fc.tuple(fc.constant(events), fc.shuffledSubarray(events, { minLength: events.length })),
    );
    fc.assert(
      fc.property(arrivals, ([events, arrival]) => {
        let state: { status: string; providerUpdatedAt: Date | null } = {
          status: 'incomplete',
          providerUpdatedAt: null,
        };
        for (const event of arrival) {
          const incoming = { status: event.status, observedAt: t(event.at) };
          if (subscriptionTransition(state, incoming).apply)
            state = { status: incoming.status, providerUpdatedAt: incoming.observedAt };
        }
        expect(state.status).toBe(events.at(-1)!.status);
      }),
    );
  });
});

describe('when a Stripe checkout counts as paid', () => {
  it('only with payment_status paid; a delayed payment waits for its own event or fails', () => {
    const complete = (payment_status: string) => ({ status: 'complete', payment_status });
    expect(checkoutPayment('checkout.session.completed', complete('paid'))).toBe('paid');
    expect(checkoutPayment('checkout.session.completed', complete('unpaid'))).toBe('waiting');
    expect(checkoutPayment('checkout.session.completed', complete('no_payment_required'))).toBe('waiting');
    expect(checkoutPayment('checkout.session.completed', { status: 'open', payment_status: 'paid' })).toBe('waiting');
    expect(checkoutPayment('checkout.session.async_payment_succeeded', complete('paid'))).toBe('paid');
    expect(checkoutPayment('checkout.session.async_payment_failed', complete('unpaid'))).toBe('failed');
  });
});

describe('plan lookup', () => {
  it("takes our plan code from the metadata, else from the plan's price id, else 'unknown'", () => {
    expect(planFromPrice('price_personal_monthly', 'gaming')).toBe('gaming');
    expect(planFromPrice('price_gaming_monthly', undefined)).toBe('gaming');
    expect(planFromPrice('price_business50_monthly', 'platinum')).toBe('business50');
    expect(planFromPrice('price_nobody_sells', null)).toBe('unknown');
    expect(planFromPrice(undefined, undefined)).toBe('unknown');
  });
});
