import { describe, expect, it } from 'vitest';
import { findPlan, type Plan } from '@qw/contracts';
import {
  decidePlanChange,
  downgradeUsageRefusal,
  prorationCents,
  type PlanChangeSubject,
} from '../src/subscriptions/plan-change-rules.ts';
import { monthlyCentsFromPrice } from '../src/webhooks/stripe-rules.ts';

const at = (iso: string) => new Date(iso);
const plan = (code: string): Plan => findPlan(code)!;

/** A 30-day period: April 2026. */
const april = { start: at('2026-04-01T00:00:00Z'), end: at('2026-05-01T00:00:00Z') };

const personal: PlanChangeSubject = {
  planCode: 'personal',
  status: 'active',
  cancelAtPeriodEnd: false,
  pendingPlanCode: null,
  monthlyCents: 799,
  periodStart: april.start,
  periodEnd: april.end,
};

describe('proration', () => {
  it('charges the monthly difference for the share of the period left, to the cent', () => {
    // Ten days in, twenty of thirty left: (1199 − 799) × 20/30 = 266.67.
    expect(prorationCents(799, 1199, april, at('2026-04-11T00:00:00Z'))).toBe(267);
    // Business 10 → Business 50 with a quarter left: 15000 × 0.25.
    expect(prorationCents(5000, 20000, april, at('2026-04-23T12:00:00Z'))).toBe(3750);
    // The whole period left: the whole difference.
    expect(prorationCents(799, 1199, april, april.start)).toBe(400);
  });

  it('charges nothing for a period that is over, never more than the difference, never a negative amount', () => {
    expect(prorationCents(799, 1199, april, april.end)).toBe(0);
    expect(prorationCents(799, 1199, april, at('2026-06-01T00:00:00Z'))).toBe(0);
    expect(prorationCents(799, 1199, april, at('2026-03-01T00:00:00Z'))).toBe(400);
    expect(prorationCents(1199, 799, april, at('2026-04-11T00:00:00Z'))).toBe(0);
    expect(prorationCents(799, 1199, { start: april.end, end: april.start }, april.start)).toBe(0);
  });
});

describe('plan change rules', () => {
  const tenDaysIn = at('2026-04-11T00:00:00Z');

  it('upgrades now, charging the prorated difference, at the new monthly price', () => {
    expect(decidePlanChange(personal, plan('gaming'), tenDaysIn)).toEqual({
      kind: 'upgrade',
      planCode: 'gaming',
      monthlyCents: 1199,
      chargedCents: 267,
    });
    const business10 = { ...personal, planCode: 'business10', monthlyCents: 5000 };
    expect(decidePlanChange(business10, plan('business250'), tenDaysIn)).toMatchObject({
      kind: 'upgrade',
      chargedCents: Math.round((85000 - 5000) * (2 / 3)),
    });
  });

  it('prorates from the price the subscription pays, not the catalog price of its plan', () => {
    expect(decidePlanChange({ ...personal, monthlyCents: 499 }, plan('gaming'), tenDaysIn)).toMatchObject({
      chargedCents: 467,
    });
  });

  it('downgrades at the period end, replacing a downgrade already waiting', () => {
    const gaming = { ...personal, planCode: 'gaming', monthlyCents: 1199 };
    expect(decidePlanChange(gaming, plan('personal'), tenDaysIn)).toEqual({ kind: 'downgrade', planCode: 'personal' });
    const business250 = { ...personal, planCode: 'business250', monthlyCents: 85000, pendingPlanCode: 'business50' };
    expect(decidePlanChange(business250, plan('business10'), tenDaysIn)).toEqual({
      kind: 'downgrade',
      planCode: 'business10',
    });
  });

  it('the current plan again calls off a waiting downgrade, and is otherwise nothing to do', () => {
    const gaming = { ...personal, planCode: 'gaming', monthlyCents: 1199 };
    expect(decidePlanChange({ ...gaming, pendingPlanCode: 'personal' }, plan('gaming'), tenDaysIn)).toEqual({
      kind: 'call_off',
    });
    expect(decidePlanChange(gaming, plan('gaming'), tenDaysIn)).toEqual({ kind: 'unchanged' });
  });

  it('an upgrade while a downgrade waits is an upgrade from the current plan', () => {
    const business50 = { ...personal, planCode: 'business50', monthlyCents: 20000, pendingPlanCode: 'business10' };
    expect(decidePlanChange(business50, plan('business250'), tenDaysIn)).toMatchObject({
      kind: 'upgrade',
      planCode: 'business250',
    });
  });

  it('refuses another account type with 422 and says which plans are open', () => {
    expect(decidePlanChange(personal, plan('business10'), tenDaysIn)).toEqual({
      kind: 'refused',
      code: 'unprocessable',
      message:
        'Business 10 is a business plan and this subscription is a personal one: a personal subscription can move only between Personal and Gaming.',
    });
    expect(decidePlanChange({ ...personal, planCode: 'business50' }, plan('gaming'), tenDaysIn)).toMatchObject({
      code: 'unprocessable',
      message: expect.stringContaining('an organization can move only between the Business plans'),
    });
    expect(decidePlanChange({ ...personal, planCode: 'pro' }, plan('gaming'), tenDaysIn)).toMatchObject({
      code: 'unprocessable',
    });
  });

  it('refuses an ended, ending, unpaid or unfinished subscription with 409 and what to do', () => {
    const refusal = (sub: Partial<PlanChangeSubject>) =>
      decidePlanChange({ ...personal, ...sub }, plan('gaming'), tenDaysIn);
    expect(refusal({ status: 'canceled' })).toEqual({
      kind: 'refused',
      code: 'conflict',
      message: 'This subscription has ended. Choose a plan in Billing to subscribe again.',
    });
    expect(refusal({ cancelAtPeriodEnd: true })).toEqual({
      kind: 'refused',
      code: 'conflict',
      message:
        'This subscription is set to end with its current period. Resume it in Manage Billing first, then change the plan.',
    });
    expect(refusal({ status: 'past_due' })).toMatchObject({
      code: 'conflict',
      message: expect.stringContaining('card'),
    });
    expect(refusal({ status: 'incomplete' })).toMatchObject({ code: 'conflict' });
    // Calling off is refused too once the subscription is set to end.
    expect(refusal({ planCode: 'gaming', pendingPlanCode: 'personal', cancelAtPeriodEnd: true })).toMatchObject({
      code: 'conflict',
    });
  });
});

describe("a Stripe price's monthly amount", () => {
  it('is the unit amount times the quantity for a monthly price, else the catalog price of the plan', () => {
    const monthly = { unit_amount: 1099, recurring: { interval: 'month', interval_count: 1 } };
    expect(monthlyCentsFromPrice(monthly, 1, 'gaming')).toBe(1099);
    expect(monthlyCentsFromPrice(monthly, 3, 'gaming')).toBe(3297);
    expect(monthlyCentsFromPrice({ ...monthly, recurring: { interval: 'year', interval_count: 1 } }, 1, 'gaming')).toBe(
      1199,
    );
    expect(
      monthlyCentsFromPrice({ ...monthly, recurring: { interval: 'month', interval_count: 3 } }, 1, 'gaming'),
    ).toBe(1199);
    expect(monthlyCentsFromPrice({ unit_amount: null, recurring: monthly.recurring }, 1, 'personal')).toBe(799);
    expect(monthlyCentsFromPrice(undefined, undefined, 'business50')).toBe(20000);
    expect(monthlyCentsFromPrice(undefined, undefined, 'unknown')).toBe(0);
  });
});

describe('a Business downgrade below what the organization uses (issue #26)', () => {
  const business10 = findPlan('business10');
  if (!business10) throw new Error('business10 is in the catalog');

  it('is allowed at or under the plan’s members and devices', () => {
    expect(downgradeUsageRefusal(business10, { members: 10, devices: 10 })).toBeNull();
    expect(downgradeUsageRefusal(business10, { members: 1, devices: 0 })).toBeNull();
  });

  it('is refused over either, saying what to remove first', () => {
    expect(downgradeUsageRefusal(business10, { members: 12, devices: 14 })).toEqual({
      kind: 'refused',
      code: 'conflict',
      message:
        'Business 10 allows 10 members and 10 devices; this organization has 12 members and 14 devices. Remove 2 members and 4 devices first, then change the plan.',
    });
    expect(downgradeUsageRefusal(business10, { members: 3, devices: 11 })?.message).toBe(
      'Business 10 allows 10 members and 10 devices; this organization has 3 members and 11 devices. Remove 1 device first, then change the plan.',
    );
  });
});
