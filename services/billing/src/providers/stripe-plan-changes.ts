import type Stripe from 'stripe';
import { AppError, type Plan } from '@qw/contracts';

const idOf = (value: string | { id: string } | null | undefined) =>
  typeof value === 'string' ? value : (value?.id ?? null);

/**
 * Plan changes at Stripe. An upgrade changes the subscription item's price now with
 * `always_invoice` (Stripe invoices and charges the prorated difference at once) and
 * `pending_if_incomplete` (a declined card changes nothing). A downgrade goes into a subscription
 * schedule: the current phase keeps the price until the period's end, the next phase has the new
 * price with no proration, and the schedule then releases the subscription, so the renewal is the
 * first invoice at the new price: Stripe's own form of "from the next renewal". The plan code
 * travels in the subscription's metadata (each phase sets it), which is what the webhooks read.
 */
export class StripePlanChanges {
  constructor(private readonly stripe: Stripe) {}

  /** Calls off a cancellation at the period's end; Stripe answers the subscription as it is now. */
  async resume(providerSubscriptionId: string): Promise<Stripe.Subscription> {
    return this.stripe.subscriptions.update(providerSubscriptionId, { cancel_at_period_end: false });
  }

  async changeNow(input: { providerSubscriptionId: string; plan: Plan; idempotencyKey: string }) {
    const current = await this.stripe.subscriptions.retrieve(input.providerSubscriptionId);
    // A downgrade waiting in a schedule would undo the upgrade at the renewal.
    const scheduleId = idOf(current.schedule);
    if (scheduleId) await this.release(scheduleId);
    const item = current.items.data[0];
    if (!item) throw new Error('the Stripe subscription has no item to change');
    const updated = await this.stripe.subscriptions.update(
      input.providerSubscriptionId,
      {
        items: [{ id: item.id, price: input.plan.priceId }],
        proration_behavior: 'always_invoice',
        payment_behavior: 'pending_if_incomplete',
        metadata: { plan_code: input.plan.code },
        expand: ['latest_invoice'],
      },
      { idempotencyKey: input.idempotencyKey },
    );
    if (updated.pending_update)
      throw new AppError(
        'payment_declined',
        'The card on file was declined for the upgrade, so the plan stays as it was. Update the card in Manage Billing and try again.',
      );
    const invoice = typeof updated.latest_invoice === 'object' ? updated.latest_invoice : null;
    return { subscription: updated, invoice };
  }

  /**
   * Answers the schedule that carries the downgrade. `idempotencyKey` names the request (the same
   * subscription, plan and period give the same key), so a retry after a lost answer repeats the
   * same requests and Stripe answers them again without a second change. A schedule is reused
   * when it is the one this downgrade made (its next phase has this plan) or has nothing waiting
   * yet (an earlier try stopped after making it); one carrying another plan is released first.
   */
  async changeAtRenewal(input: {
    providerSubscriptionId: string;
    plan: Plan;
    currentPlanCode: string;
    idempotencyKey: string;
  }): Promise<{ scheduleId: string; subscription: Stripe.Subscription }> {
    const current = await this.stripe.subscriptions.retrieve(input.providerSubscriptionId);
    const item = current.items.data[0];
    if (!item) throw new Error('the Stripe subscription has no item to change');
    const attachedId = idOf(current.schedule);
    let schedule = attachedId ? await this.stripe.subscriptionSchedules.retrieve(attachedId) : null;
    const waiting = schedule?.phases[1]?.metadata?.plan_code;
    if (schedule && waiting !== undefined && waiting !== input.plan.code) {
      await this.release(schedule.id);
      schedule = null;
    }
    schedule ??= await this.newSchedule(input.providerSubscriptionId, input.idempotencyKey);
    const quantity = item.quantity ?? 1;
    await this.stripe.subscriptionSchedules.update(
      schedule.id,
      {
        end_behavior: 'release',
        proration_behavior: 'none',
        phases: [
          {
            items: [{ price: item.price.id, quantity }],
            // The phase running now keeps its start; it ends where the period does.
            start_date:
              schedule.current_phase?.start_date ?? schedule.phases[0]?.start_date ?? item.current_period_start,
            end_date: item.current_period_end,
            metadata: { plan_code: input.currentPlanCode },
          },
          {
            items: [{ price: input.plan.priceId, quantity }],
            duration: { interval: 'month', interval_count: 1 },
            proration_behavior: 'none',
            metadata: { plan_code: input.plan.code },
          },
        ],
      },
      // Each schedule only ever waits for one plan, so this key never replays another change.
      { idempotencyKey: `${input.idempotencyKey}-phases-${schedule.id}` },
    );
    // The subscription as it is now, schedule attached: billing records this view.
    return { scheduleId: schedule.id, subscription: await this.current(input.providerSubscriptionId) };
  }

  /**
   * A schedule made from the subscription under the request's key. Stripe answers a repeated key
   * with the schedule it made the first time, which may have been released since (the downgrade
   * was called off and is now asked for again in the same period): then the next key in a chain
   * named after the released one, the same chain for every retry.
   */
  private async newSchedule(providerSubscriptionId: string, idempotencyKey: string) {
    let key = `${idempotencyKey}-schedule`;
    for (let tries = 0; tries < 20; tries++) {
      const made = await this.stripe.subscriptionSchedules.create(
        { from_subscription: providerSubscriptionId },
        { idempotencyKey: key },
      );
      const now = await this.stripe.subscriptionSchedules.retrieve(made.id);
      if (now.status === 'active' || now.status === 'not_started') return now;
      key = `${idempotencyKey}-schedule-after-${made.id}`;
    }
    throw new Error('Stripe kept answering released schedules for this downgrade');
  }

  /** The subscription as Stripe has it now. */
  async current(providerSubscriptionId: string): Promise<Stripe.Subscription> {
    return this.stripe.subscriptions.retrieve(providerSubscriptionId);
  }

  /** Calls off a downgrade: the schedule lets the subscription go, which keeps its current price. */
  async release(scheduleId: string): Promise<void> {
    try {
      await this.stripe.subscriptionSchedules.release(scheduleId, {}, { idempotencyKey: `release-${scheduleId}` });
    } catch (error) {
      // Released or completed already (an earlier try whose answer was lost, the period's end): done.
      const schedule = await this.stripe.subscriptionSchedules.retrieve(scheduleId);
      if (schedule.status === 'active' || schedule.status === 'not_started') throw error;
    }
  }
}
