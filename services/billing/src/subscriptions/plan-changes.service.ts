import type { Kysely } from 'kysely';
import type { Logger } from 'pino';
import type Stripe from 'stripe';
import {
  AppError,
  findPlan,
  getOrganizationRpc,
  orgDeviceOverviewRpc,
  requireUserId,
  type Caller,
  type Plan,
  type PlanChange,
  type PlanChangePreview,
  type SubscriptionView,
} from '@qw/contracts';
import type { RpcClient } from '@qw/platform/bus';
import { takeRateLimits } from '@qw/platform/limits';
import type { BillingDatabase, Subscription } from '../database.ts';
import { clockNow } from '../clock.ts';
import type { StripePlanChanges } from '../providers/stripe-plan-changes.ts';
import { applyStripeInvoice, applyStripeSubscription } from '../webhooks/stripe-ledger.ts';
import { applySubscriptionState, monthlyCentsOf, publishSubscriptionUpdated, recordInvoicePaid } from './ledger.ts';
import {
  decidePlanChange,
  downgradeUsageRefusal,
  type PlanChangeDecision,
  type PlanChangeSubject,
} from './plan-change-rules.ts';
import { accountActionCheck } from './account-limits.ts';
import { refuseUnlessSubscriptionOwner } from './organization-billing.ts';
import { renewOwed, subscriptionView } from './subscriptions.service.ts';

type Db = Kysely<BillingDatabase>;

function subjectOf(sub: Subscription): PlanChangeSubject {
  return {
    planCode: sub.plan_code,
    status: sub.status,
    cancelAtPeriodEnd: sub.cancel_at_period_end,
    pendingPlanCode: sub.pending_plan_code,
    monthlyCents: monthlyCentsOf(sub),
    periodStart: sub.current_period_start ? new Date(sub.current_period_start) : null,
    periodEnd: sub.current_period_end ? new Date(sub.current_period_end) : null,
  };
}

function refuseUnlessAllowed(
  decision: PlanChangeDecision,
): asserts decision is Exclude<PlanChangeDecision, { kind: 'refused' }> {
  if (decision.kind === 'refused') throw new AppError(decision.code, decision.message);
}

/** Only a plan still running and set to end with its period can be resumed. */
function resumeRefusal(sub: Subscription): AppError | null {
  if (sub.status === 'canceled')
    return new AppError(
      'conflict',
      'This plan has ended and cannot be resumed. Choose a plan in Billing to subscribe again.',
    );
  if (!sub.cancel_at_period_end)
    return new AppError('conflict', 'This plan is not set to end: there is nothing to resume.');
  return null;
}

/** The current period, as idempotency keys name it (its end in milliseconds; 0 before the first). */
const periodEndOf = (sub: Subscription) => (sub.current_period_end ? new Date(sub.current_period_end).getTime() : 0);

const takesEffect = (decision: PlanChangeDecision) => (decision.kind === 'downgrade' ? 'period_end' : 'now');

/**
 * Plan changes (billing.rpc.change-plan) by the subscription's owner: a person's own plan, or an
 * organization's by its owners (identity says who they are). The rules are `decidePlanChange`;
 * the test provider's subscriptions change in this ledger on their clock, Stripe's at Stripe first
 * (money moves there, never inside a transaction) and then here from Stripe's answer.
 */
export class PlanChangesService {
  constructor(
    private readonly deps: { db: Db; rpc: RpcClient; stripe: StripePlanChanges | undefined; logger: Logger },
  ) {}

  async change(caller: Caller, input: { subscription_id: string; plan_code: string }): Promise<PlanChange> {
    const { target, sub } = await this.targetAndSubscription(caller, input);
    await this.refuseDowngradeBelowUsage(caller, sub, target);
    await takeRateLimits(this.deps.db, [accountActionCheck('change-plan', requireUserId(caller))]);
    const change =
      sub.provider === 'stripe' ? await this.changeAtStripe(sub.id, target) : await this.changeHere(sub.id, target);
    this.deps.logger.info(
      { subscriptionId: sub.id, to: target.code, takesEffect: change.takes_effect, chargedCents: change.charged_cents },
      'plan changed',
    );
    return change;
  }

  /**
   * An organization's move to a cheaper Business plan, refused while it has more members or
   * devices than that plan allows (identity and provisioning count them, asked as the caller).
   */
  private async refuseDowngradeBelowUsage(caller: Caller, sub: Subscription, target: Plan): Promise<void> {
    const current = findPlan(sub.plan_code);
    if (!sub.org_id || !current || target.accountType !== 'business' || target.priceCents >= current.priceCents) return;
    const [organization, devices] = await Promise.all([
      this.deps.rpc.request(getOrganizationRpc, { org_id: sub.org_id }, caller),
      this.deps.rpc.request(orgDeviceOverviewRpc, { org_id: sub.org_id }, caller),
    ]);
    const refusal = downgradeUsageRefusal(target, { members: organization.member_count, devices: devices.devices });
    if (refusal) throw new AppError(refusal.code, refusal.message);
  }

  /** The plan asked for (refused when unknown) and the subscription, if the caller may change it. */
  private async targetAndSubscription(caller: Caller, input: { subscription_id: string; plan_code: string }) {
    requireUserId(caller);
    const target = findPlan(input.plan_code);
    if (!target)
      throw new AppError('unknown_plan', `Unknown plan: ${String(input.plan_code).slice(0, 64)}.`, {
        field: 'plan_code',
      });
    const found = await this.deps.db
      .selectFrom('subscriptions')
      .selectAll()
      .where('id', '=', input.subscription_id)
      .executeTakeFirst();
    return { target, sub: await refuseUnlessSubscriptionOwner(this.deps.rpc, caller, found, 'change') };
  }

  /**
   * What `change` would do now, without doing it: the same decision on the same record (a test
   * subscription on its clock, after the renewals it owes), refused the same way.
   */
  async preview(caller: Caller, input: { subscription_id: string; plan_code: string }): Promise<PlanChangePreview> {
    const found = await this.targetAndSubscription(caller, input);
    const { target } = found;
    let { sub } = found;
    const realNow = new Date();
    if (sub.provider === 'test') {
      await this.deps.db.transaction().execute((tx) => renewOwed(tx, sub.id, realNow));
      sub = await this.deps.db
        .selectFrom('subscriptions')
        .selectAll()
        .where('id', '=', sub.id)
        .executeTakeFirstOrThrow();
    }
    const now = sub.provider === 'test' ? await clockNow(this.deps.db, sub.test_clock_id, realNow) : realNow;
    const decision = decidePlanChange(subjectOf(sub), target, now);
    refuseUnlessAllowed(decision);
    await this.refuseDowngradeBelowUsage(caller, sub, target);
    const renewsOn =
      decision.kind === 'downgrade' ? target : decision.kind === 'call_off' ? findPlan(sub.plan_code) : null;
    return {
      plan_code: target.code,
      takes_effect: takesEffect(decision),
      charge_now_cents: decision.kind === 'upgrade' ? decision.chargedCents : 0,
      next_charge_cents:
        decision.kind === 'upgrade'
          ? decision.monthlyCents
          : (renewsOn?.priceCents ??
            (sub.pending_plan_code ? (findPlan(sub.pending_plan_code)?.priceCents ?? 0) : monthlyCentsOf(sub))),
      next_charge_at: sub.current_period_end ? new Date(sub.current_period_end).toISOString() : null,
    };
  }

  /**
   * Calls off a cancellation set for the period's end, so the plan renews again: at Stripe first
   * (then recorded from its answer, as a webhook would be), for the test provider in the ledger.
   */
  async resume(caller: Caller, input: { subscription_id: string }): Promise<{ subscription: SubscriptionView }> {
    const found = await this.deps.db
      .selectFrom('subscriptions')
      .selectAll()
      .where('id', '=', input.subscription_id)
      .executeTakeFirst();
    const owned = await refuseUnlessSubscriptionOwner(this.deps.rpc, caller, found, 'resume');
    const refusal = resumeRefusal(owned);
    if (refusal) throw refusal;
    await takeRateLimits(this.deps.db, [accountActionCheck('resume', requireUserId(caller))]);
    if (owned.provider === 'stripe') {
      const { stripe } = this.deps;
      if (!stripe || !owned.provider_subscription_id)
        throw new AppError('conflict', 'This subscription is billed by Stripe, which this installation does not use.');
      const subscription = await stripe.resume(owned.provider_subscription_id);
      await this.deps.db.transaction().execute(async (tx) => {
        const { applied } = await applyStripeSubscription(
          tx,
          'customer.subscription.updated',
          subscription,
          new Date(),
        );
        if (!applied) await publishSubscriptionUpdated(tx, owned.id, new Date());
      });
    } else {
      await this.deps.db.transaction().execute(async (tx) => {
        const realNow = new Date();
        await renewOwed(tx, owned.id, realNow);
        const sub = await tx
          .selectFrom('subscriptions')
          .selectAll()
          .where('id', '=', owned.id)
          .forUpdate()
          .executeTakeFirstOrThrow();
        // The period may have ended (and the plan with it) on its clock since it was read.
        const late = resumeRefusal(sub);
        if (late) throw late;
        await applySubscriptionState(tx, sub, {
          status: sub.status,
          periodStart: null,
          periodEnd: null,
          cancelAtPeriodEnd: false,
          observedAt: await clockNow(tx, sub.test_clock_id, realNow),
        });
      });
    }
    const after = await this.deps.db
      .selectFrom('subscriptions')
      .selectAll()
      .where('id', '=', owned.id)
      .executeTakeFirstOrThrow();
    this.deps.logger.info({ subscriptionId: owned.id }, 'subscription resumed');
    return { subscription: subscriptionView(after) };
  }

  /** The test provider: renewals owed first, then the change on the subscription's clock, in one transaction. */
  private async changeHere(id: string, target: Plan): Promise<PlanChange> {
    return this.deps.db.transaction().execute(async (tx) => {
      const realNow = new Date();
      await renewOwed(tx, id, realNow);
      const sub = await tx
        .selectFrom('subscriptions')
        .selectAll()
        .where('id', '=', id)
        .forUpdate()
        .executeTakeFirstOrThrow();
      const now = await clockNow(tx, sub.test_clock_id, realNow);
      const decision = decidePlanChange(subjectOf(sub), target, now);
      refuseUnlessAllowed(decision);
      let charged = 0;
      switch (decision.kind) {
        case 'unchanged':
          break;
        case 'call_off':
          await tx.updateTable('subscriptions').set({ pending_plan_code: null }).where('id', '=', id).execute();
          await publishSubscriptionUpdated(tx, id, now);
          break;
        case 'downgrade':
          await tx
            .updateTable('subscriptions')
            .set({ pending_plan_code: decision.planCode })
            .where('id', '=', id)
            .execute();
          await publishSubscriptionUpdated(tx, id, now);
          break;
        case 'upgrade': {
          await tx
            .updateTable('subscriptions')
            .set({ plan_code: decision.planCode, monthly_cents: decision.monthlyCents, pending_plan_code: null })
            .where('id', '=', id)
            .execute();
          charged = decision.chargedCents;
          if (charged > 0 && sub.current_period_end) {
            const upgraded = await tx
              .selectFrom('subscriptions')
              .selectAll()
              .where('id', '=', id)
              .executeTakeFirstOrThrow();
            await recordInvoicePaid(tx, upgraded, {
              providerInvoiceId: null,
              amountCents: charged,
              currency: target.currency,
              periodStart: now,
              periodEnd: new Date(sub.current_period_end),
              paidAt: now,
              providerPaymentId: null,
              reason: 'plan_change',
              fromPlanCode: sub.plan_code,
            });
          }
          await publishSubscriptionUpdated(tx, id, now);
          break;
        }
      }
      const after = await tx.selectFrom('subscriptions').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
      return { subscription: subscriptionView(after), takes_effect: takesEffect(decision), charged_cents: charged };
    });
  }

  /**
   * Stripe: decided on our record, done at Stripe, then recorded from Stripe's answer (the webhooks
   * that follow say the same and change nothing more).
   */
  private async changeAtStripe(id: string, target: Plan): Promise<PlanChange> {
    const { db, stripe } = this.deps;
    if (!stripe)
      throw new AppError('conflict', 'This subscription is billed by Stripe, which this installation does not use.');
    const sub = await db.selectFrom('subscriptions').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
    const decision = decidePlanChange(subjectOf(sub), target, new Date());
    refuseUnlessAllowed(decision);
    if (!sub.provider_subscription_id) throw new AppError('conflict', 'This subscription is not active yet.');
    const providerSubscriptionId = sub.provider_subscription_id;
    let charged = 0;
    switch (decision.kind) {
      case 'unchanged':
        break;
      case 'call_off': {
        if (sub.provider_schedule_id) await stripe.release(sub.provider_schedule_id);
        const subscription = await stripe.current(providerSubscriptionId);
        await this.recordAtStripe(id, { pending_plan_code: null, provider_schedule_id: null }, subscription);
        break;
      }
      case 'downgrade': {
        // The same downgrade (subscription, plan, period) is the same request to Stripe: a retry
        // after a lost answer makes no second change (see changeAtRenewal).
        const { scheduleId, subscription } = await stripe.changeAtRenewal({
          providerSubscriptionId,
          plan: target,
          currentPlanCode: sub.plan_code,
          idempotencyKey: `downgrade-${id}-${target.code}-${periodEndOf(sub)}`,
        });
        await this.recordAtStripe(
          id,
          { pending_plan_code: decision.planCode, provider_schedule_id: scheduleId },
          subscription,
        );
        break;
      }
      case 'upgrade': {
        // One upgrade to a plan per period: a retry after a lost answer is the same request to Stripe.
        const { subscription, invoice } = await stripe.changeNow({
          providerSubscriptionId,
          plan: target,
          idempotencyKey: `upgrade-${id}-${target.code}-${periodEndOf(sub)}`,
        });
        // changeNow released any schedule: no downgrade waits any more.
        await this.recordAtStripe(id, { pending_plan_code: null, provider_schedule_id: null }, subscription, invoice);
        charged = invoice?.status === 'paid' ? invoice.amount_paid : 0;
        break;
      }
    }
    const after = await db.selectFrom('subscriptions').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
    return { subscription: subscriptionView(after), takes_effect: takesEffect(decision), charged_cents: charged };
  }

  /**
   * Records what billing asked of Stripe (the pending plan and its schedule), then Stripe's answer
   * as a whole view of the subscription at the moment it answered, exactly as a webhook would be
   * applied: webhooks older than it change nothing, newer ones apply as usual.
   */
  private async recordAtStripe(
    id: string,
    asked: { pending_plan_code: string | null; provider_schedule_id: string | null },
    subscription: Stripe.Subscription,
    invoice?: Stripe.Invoice | null,
  ): Promise<void> {
    const answeredAt = new Date();
    await this.deps.db.transaction().execute(async (tx) => {
      await tx.updateTable('subscriptions').set(asked).where('id', '=', id).execute();
      const { applied } = await applyStripeSubscription(tx, 'customer.subscription.updated', subscription, answeredAt);
      // A newer webhook got there first: its state stays, and the change is still announced.
      if (!applied) await publishSubscriptionUpdated(tx, id, answeredAt);
      if (invoice?.status === 'paid') await applyStripeInvoice(tx, 'invoice.paid', invoice, answeredAt);
    });
  }
}
