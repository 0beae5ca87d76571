import type { Counters } from './counters.ts';
import type { GenerationTables } from './tables.ts';

/**
 * The rows and events of the analytics projection (definition 2): what one batch reads through a
 * `ProjectionStore`, the events it applies, and what it hands back to be written.
 */

/** A subscription as analytics knows it; `mrr_cents` is what it adds to its customer's MRR now. */
export type SubscriptionRow = GenerationTables['subscriptions'];

/** A customer: a person's personal plans, or an organization's plans. */
export type CustomerRow = GenerationTables['customers'];

export type InvoiceRow = GenerationTables['invoices'];

export type SubscriptionState = {
  subscriptionId: string;
  userId: string | null;
  orgId: string | null;
  planCode: string;
  status: string;
  startedAt?: string | undefined;
  effectiveAt?: string | undefined;
  monthlyCents?: number | undefined;
};

/** The events the projection takes, from billing, identity and the gateway. */
export type ProjectionEvent =
  | {
      kind: 'subscription';
      occurredAt: string;
      state: SubscriptionState;
      /** Set on billing's canceled event: the subscription ended then. */
      canceledAt?: string | undefined;
    }
  | {
      kind: 'invoice';
      invoiceId: string;
      subscriptionId: string | null;
      owner: string | null;
      planCode: string;
      amountCents: number;
      paidAt: string;
    }
  | { kind: 'refund'; refundId: string; invoiceId: string; amountCents: number; issuedAt: string }
  | { kind: 'signup'; userId: string; registeredAt: string }
  | { kind: 'visits'; day: string; path: string; views: number };

export interface ProjectionStore {
  subscriptions(ids: readonly string[]): Promise<SubscriptionRow[]>;
  customers(keys: readonly string[]): Promise<CustomerRow[]>;
  /** The months in which each customer paid something. */
  customerMonths(keys: readonly string[]): Promise<Array<{ customer_key: string; month: string }>>;
  invoices(ids: readonly string[]): Promise<InvoiceRow[]>;
  /** Paid invoices of these subscriptions whose owner was not known when they were paid. */
  unattributedInvoices(subscriptionIds: readonly string[]): Promise<InvoiceRow[]>;
}

export type BatchChanges = {
  subscriptions: SubscriptionRow[];
  customers: CustomerRow[];
  invoices: InvoiceRow[];
  customerMonths: Array<{ customer_key: string; month: string }>;
  refunds: Array<GenerationTables['refunds']>;
  signups: Array<GenerationTables['signups']>;
  counters: Counters;
};
