import {
  billingEvents,
  invoicePaid,
  refundIssued,
  subscriptionActivated,
  subscriptionCanceled,
  subscriptionUpdated,
  userRegistered,
  visitsCounted,
  type EventContract,
} from '@qw/contracts';
import type { ReceivedEvent } from '@qw/platform/bus';
import type { Static } from 'typebox';
import type { ProjectionEvent } from './rows.ts';

/**
 * Where the projection's events come from: one durable consumer per source and generation.
 * Billing's events are read on the stream's wildcard, so a subscription's activation, plan
 * changes, invoices, refunds and end arrive in the order billing published them.
 */
export type Source = {
  /** Part of the durable's name: `analytics_g<generation>_<name>` (contracts' `analyticsDurableName`). */
  name: string;
  owner: string;
  contract: EventContract;
  /** Several events of the owner's stream in one consumer, in stream order. */
  events?: readonly EventContract[];
};

export const sources: readonly Source[] = [
  { name: 'billing', owner: 'billing', contract: invoicePaid, events: billingEvents },
  { name: 'signups', owner: 'identity', contract: userRegistered },
  { name: 'visits', owner: 'gateway', contract: visitsCounted },
];

type Data<C> = C extends EventContract<infer S> ? Static<S> : never;

/** An event as the projection's rules take it, or null for an event no figure depends on. */
export function toProjectionEvent(event: ReceivedEvent<unknown>): ProjectionEvent | null {
  switch (event.type) {
    case subscriptionActivated.subject:
    case subscriptionUpdated.subject:
      return {
        kind: 'subscription',
        occurredAt: event.occurredAt,
        state: event.data as Data<typeof subscriptionUpdated>,
      };
    case subscriptionCanceled.subject: {
      const data = event.data as Data<typeof subscriptionCanceled>;
      return { kind: 'subscription', occurredAt: event.occurredAt, state: data, canceledAt: data.canceledAt };
    }
    case invoicePaid.subject: {
      const data = event.data as Data<typeof invoicePaid>;
      return {
        kind: 'invoice',
        invoiceId: data.invoiceId,
        subscriptionId: data.subscriptionId,
        owner: data.orgId ?? data.userId,
        planCode: data.planCode,
        amountCents: data.amountCents,
        paidAt: data.paidAt,
      };
    }
    case refundIssued.subject: {
      const data = event.data as Data<typeof refundIssued>;
      return {
        kind: 'refund',
        refundId: data.refundId,
        invoiceId: data.invoiceId,
        amountCents: data.amountCents,
        issuedAt: data.issuedAt,
      };
    }
    case userRegistered.subject: {
      const data = event.data as Data<typeof userRegistered>;
      return { kind: 'signup', userId: data.userId, registeredAt: data.registeredAt };
    }
    case visitsCounted.subject: {
      const data = event.data as Data<typeof visitsCounted>;
      return { kind: 'visits', day: data.day, path: data.path, views: data.views };
    }
    default:
      // Checkouts, claims and failed payments: the subscription events that follow say what matters.
      return null;
  }
}
