import type { ColumnType, Generated, Selectable } from 'kysely';
import type { PlatformTables } from '@qw/platform/db';

type Timestamp = ColumnType<Date, Date | string | undefined, Date | string>;
type NullableTimestamp = ColumnType<Date | null, Date | string | null | undefined, Date | string | null>;

export interface CustomersTable {
  id: string;
  provider: string;
  provider_customer_id: string | null;
  email: string;
  user_id: string | null;
  created_at: Timestamp;
}
export interface SubscriptionsTable {
  id: string;
  provider: string;
  provider_subscription_id: string | null;
  customer_id: string | null;
  user_id: string | null;
  org_id: string | null;
  plan_code: string;
  seats: Generated<number>;
  status: string;
  current_period_start: NullableTimestamp;
  current_period_end: NullableTimestamp;
  cancel_at_period_end: Generated<boolean>;
  canceled_at: NullableTimestamp;
  provider_updated_at: NullableTimestamp;
  test_clock_id: ColumnType<string | null, string | null | undefined, string | null>;
  /** The start of its first paid period, on its clock. */
  started_at: NullableTimestamp;
  /** Its price per month; null: the catalog price of its plan (rows from before plan changes). */
  monthly_cents: ColumnType<number | null, number | null | undefined, number | null>;
  /** A downgrade chosen for the end of the period: the plan the next renewal moves it to. */
  pending_plan_code: ColumnType<string | null, string | null | undefined, string | null>;
  /** Stripe: the subscription schedule that carries a pending downgrade there. */
  provider_schedule_id: ColumnType<string | null, string | null | undefined, string | null>;
  /** The card it renews with, as the provider reports it (brand, last four digits). */
  card_brand: ColumnType<string | null, string | null | undefined, string | null>;
  card_last4: ColumnType<string | null, string | null | undefined, string | null>;
  /** Its account was deleted: still to be cancelled at the provider (retried until it answers). */
  provider_cancel_due: Generated<boolean>;
  created_at: Timestamp;
}
export interface CheckoutSessionsTable {
  id: string;
  provider: string;
  plan_code: string;
  account_type: string;
  quantity: number;
  amount_cents: number;
  currency: Generated<string>;
  status: 'open' | 'paid' | 'claimed' | 'expired' | 'failed';
  email: string | null;
  customer_id: string | null;
  subscription_id: string | null;
  claimed_by: string | null;
  claimed_org_id: string | null;
  paid_at: NullableTimestamp;
  claimed_at: NullableTimestamp;
  test_clock_id: ColumnType<string | null, string | null | undefined, string | null>;
  /** A signed-in person who started it inside the app (null: bought from the public pricing page). */
  buyer_id: ColumnType<string | null, string | null | undefined, string | null>;
  /** The name chosen for the organization a Business plan bought in the app makes. */
  org_name: ColumnType<string | null, string | null | undefined, string | null>;
  /** An organization of the buyer's whose plan ended, which this Business plan pays for again. */
  for_org_id: ColumnType<string | null, string | null | undefined, string | null>;
  created_at: Timestamp;
}
export interface InvoicesTable {
  id: string;
  provider_invoice_id: string | null;
  subscription_id: string | null;
  user_id: string | null;
  org_id: string | null;
  plan_code: string;
  amount_cents: number;
  currency: Generated<string>;
  status: string;
  period_start: Timestamp;
  period_end: Timestamp;
  paid_at: NullableTimestamp;
  provider_payment_id: string | null;
  /** From the invoice_numbers sequence; shown as QW-000123 (`invoiceNumberText`). bigint: pg returns a string. */
  number: ColumnType<string, never, never>;
  /** The card that paid it, as the provider reports it (brand, last four digits), when known. */
  card_brand: ColumnType<string | null, string | null | undefined, string | null>;
  card_last4: ColumnType<string | null, string | null | undefined, string | null>;
  /** Why it was charged: checkout, renewal or plan_change; null on invoices recorded before issue #26. */
  reason: ColumnType<string | null, string | null | undefined, string | null>;
  /** A plan change's invoice: the plan it moved from. */
  from_plan_code: ColumnType<string | null, string | null | undefined, string | null>;
  created_at: Timestamp;
}
export interface RefundsTable {
  id: string;
  invoice_id: string;
  subscription_id: string | null;
  /** Who had the money back: with `email`, what makes the guarantee once per customer. */
  user_id: string | null;
  email: string | null;
  amount_cents: number;
  /** pending: recorded, the provider not yet confirmed; issued: refunded and announced. */
  status: ColumnType<'pending' | 'issued', 'pending' | 'issued' | undefined, 'pending' | 'issued'>;
  /** Stripe still bills the subscription: end it there before refunding. */
  cancel_at_provider: Generated<boolean>;
  attempts: Generated<number>;
  issued_at: NullableTimestamp;
  created_at: Timestamp;
  /** The operator who asked for it (issue #26), null for the customer's own; its event says so. */
  refunded_by: ColumnType<string | null, string | null | undefined, string | null>;
}
export interface WebhookEventsTable {
  id: string;
  type: string;
  received_at: Timestamp;
  /** The verified event, kept until it is applied (then null: it names the buyer's e-mail). */
  payload: ColumnType<unknown, string | null | undefined, string | null>;
  /** When the worker applied it; null: waiting, or failed and due again at `next_attempt_at`. */
  handled_at: NullableTimestamp;
  attempts: Generated<number>;
  next_attempt_at: Generated<Date>;
  last_error: ColumnType<string | null, string | null | undefined, string | null>;
}
export interface TestClocksTable {
  id: string;
  /** bigint: pg returns it as a string. */
  offset_seconds: ColumnType<string, number | undefined, number>;
  created_at: Timestamp;
}

/** Billing details for invoices (issue #26): a person's (user_id) or an organization's (org_id). */
export interface BillingDetailsTable {
  id: string;
  user_id: string | null;
  org_id: string | null;
  company_name: string;
  address: string;
  vat_id: string;
  updated_at: Timestamp;
}

/** The platform's tables (outbox, inbox, rate events, mail jobs) come with `PlatformTables`. */
export interface BillingDatabase extends PlatformTables {
  customers: CustomersTable;
  subscriptions: SubscriptionsTable;
  checkout_sessions: CheckoutSessionsTable;
  invoices: InvoicesTable;
  refunds: RefundsTable;
  webhook_events: WebhookEventsTable;
  test_clocks: TestClocksTable;
  billing_details: BillingDetailsTable;
}

export type Subscription = Selectable<SubscriptionsTable>;
export type Invoice = Selectable<InvoicesTable>;
export type CheckoutSession = Selectable<CheckoutSessionsTable>;
export type Refund = Selectable<RefundsTable>;
