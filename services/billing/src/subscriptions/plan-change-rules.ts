import { findPlan, type Plan } from '@qw/contracts';

/** What a plan change needs to know about the subscription, as billing records it. */
export type PlanChangeSubject = {
  planCode: string;
  status: string;
  cancelAtPeriodEnd: boolean;
  pendingPlanCode: string | null;
  monthlyCents: number;
  periodStart: Date | null;
  periodEnd: Date | null;
};

export type PlanChangeDecision =
  | { kind: 'refused'; code: 'unprocessable' | 'conflict'; message: string }
  /** The plan it is on, nothing pending: nothing to do. */
  | { kind: 'unchanged' }
  /** The plan it is on while a downgrade waits: the downgrade is called off. */
  | { kind: 'call_off' }
  /** A cheaper plan: from the next renewal, which charges its price. */
  | { kind: 'downgrade'; planCode: string }
  /** A dearer plan: now, with the difference for the rest of the period charged at once. */
  | { kind: 'upgrade'; planCode: string; monthlyCents: number; chargedCents: number };

/**
 * What the rest of the period costs on the new price: the monthly difference times the share of
 * the period left, rounded to the cent (what Stripe's proration does with `always_invoice`).
 * Nothing for a period that is over, and never a negative charge.
 */
export function prorationCents(
  fromMonthlyCents: number,
  toMonthlyCents: number,
  period: { start: Date; end: Date },
  now: Date,
): number {
  const total = period.end.getTime() - period.start.getTime();
  const remaining = Math.min(total, Math.max(0, period.end.getTime() - now.getTime()));
  if (total <= 0 || remaining === 0) return 0;
  return Math.max(0, Math.round(((toMonthlyCents - fromMonthlyCents) * remaining) / total));
}

const accountWords = { personal: 'personal', business: 'business' } as const;

/**
 * The rules of a plan change (billing.rpc.change-plan), once the caller is known to be the
 * subscription's owner and the plan code one of ours: only within the account type, only on a
 * running subscription that is not set to end, an upgrade now and a downgrade at the period's end.
 */
export function decidePlanChange(sub: PlanChangeSubject, target: Plan, now: Date): PlanChangeDecision {
  const current = findPlan(sub.planCode);
  if (!current || current.accountType !== target.accountType) {
    const kind = current ? accountWords[current.accountType] : 'unknown';
    return {
      kind: 'refused',
      code: 'unprocessable',
      message: `${target.name} is a ${accountWords[target.accountType]} plan and this subscription is ${
        kind === 'unknown' ? 'on a plan we no longer sell' : `a ${kind} one`
      }: ${
        current?.accountType === 'business'
          ? 'an organization can move only between the Business plans.'
          : current
            ? 'a personal subscription can move only between Personal and Gaming.'
            : 'choose a plan in Billing instead.'
      }`,
    };
  }
  if (sub.status === 'canceled')
    return {
      kind: 'refused',
      code: 'conflict',
      message: 'This subscription has ended. Choose a plan in Billing to subscribe again.',
    };
  if (sub.cancelAtPeriodEnd)
    return {
      kind: 'refused',
      code: 'conflict',
      message:
        'This subscription is set to end with its current period. Resume it in Manage Billing first, then change the plan.',
    };
  if (sub.status === 'past_due')
    return {
      kind: 'refused',
      code: 'conflict',
      message: 'The last payment for this subscription did not go through. Update the card in Manage Billing first.',
    };
  if (sub.status !== 'active')
    return {
      kind: 'refused',
      code: 'conflict',
      message: 'This subscription is not active yet: finish its payment first.',
    };
  if (target.code === current.code) return sub.pendingPlanCode ? { kind: 'call_off' } : { kind: 'unchanged' };
  if (target.priceCents <= current.priceCents) return { kind: 'downgrade', planCode: target.code };
  const chargedCents =
    sub.periodStart && sub.periodEnd
      ? prorationCents(sub.monthlyCents, target.priceCents, { start: sub.periodStart, end: sub.periodEnd }, now)
      : 0;
  return { kind: 'upgrade', planCode: target.code, monthlyCents: target.priceCents, chargedCents };
}

/** What an organization uses now, as identity (members) and provisioning (devices) count it. */
export type OrganizationUsage = { members: number; devices: number };

const countOf = (n: number, one: string, many: string) => `${n} ${n === 1 ? one : many}`;

/**
 * A Business downgrade (issue #26) is refused while the organization has more members or devices
 * than the cheaper plan allows: the renewal would leave people without a place and devices over
 * the cap. The message says what to remove first.
 */
export function downgradeUsageRefusal(
  target: Plan,
  usage: OrganizationUsage,
): Extract<PlanChangeDecision, { kind: 'refused' }> | null {
  const over: string[] = [];
  if (target.userCap !== null && usage.members > target.userCap)
    over.push(countOf(usage.members - target.userCap, 'member', 'members'));
  if (target.devices !== null && usage.devices > target.devices)
    over.push(countOf(usage.devices - target.devices, 'device', 'devices'));
  if (over.length === 0) return null;
  return {
    kind: 'refused',
    code: 'conflict',
    message: `${target.name} allows ${countOf(target.userCap ?? 0, 'member', 'members')} and ${countOf(
      target.devices ?? 0,
      'device',
      'devices',
    )}; this organization has ${countOf(usage.members, 'member', 'members')} and ${countOf(
      usage.devices,
      'device',
      'devices',
    )}. Remove ${over.join(' and ')} first, then change the plan.`,
  };
}
