import type { ColumnType, Generated, Selectable } from 'kysely';

type Timestamp = ColumnType<Date, Date | string | undefined, Date | string>;
type NullableTimestamp = ColumnType<Date | null, Date | string | null | undefined, Date | string | null>;

export interface CustomersTable { id: string; provider: string; provider_customer_id: string | null; email: string; user_id: string | null; created_at: Timestamp }
export interface SubscriptionsTable {
  id: string; provider: string; provider_subscription_id: string | null; customer_id: string | null; user_id: string | null; org_id: string | null;
  plan_code: string; seats: Generated<number>; status: string; current_period_start: NullableTimestamp; current_period_end: NullableTimestamp;
  cancel_at_period_end: Generated<boolean>; canceled_at: NullableTimestamp; provider_updated_at: NullableTimestamp; created_at: Timestamp;
}
export interface CheckoutSessionsTable {
  id: string; provider: string; plan_code: string; account_type: string; quantity: number; amount_cents: number; currency: Generated<string>;
  status: 'open' | 'paid' | 'claimed' | 'expired'; email: string | null; customer_id: string | null; subscription_id: string | null;
  claimed_by: string | null; claimed_org_id: string | null; paid_at: NullableTimestamp; claimed_at: NullableTimestamp; created_at: Timestamp;
}
export interface InvoicesTable {
  id: string; provider_invoice_id: string | null; subscription_id: string | null; user_id: string | null; org_id: string | null; plan_code: string;
  amount_cents: number; currency: Generated<string>; status: string; period_start: Timestamp; period_end: Timestamp; paid_at: NullableTimestamp;
  provider_payment_id: string | null; created_at: Timestamp;
}
export interface RefundsTable { id: string; invoice_id: string; amount_cents: number; created_at: Timestamp }
export interface WebhookEventsTable { id: string; type: string; received_at: Timestamp }
export interface TestClockTable { id: number; offset_seconds: ColumnType<string, number, number> }

export interface BillingDatabase {
  customers: CustomersTable;
  subscriptions: SubscriptionsTable;
  checkout_sessions: CheckoutSessionsTable;
  invoices: InvoicesTable;
  refunds: RefundsTable;
  webhook_events: WebhookEventsTable;
  test_clock: TestClockTable;
  outbox: { id: string; subject: string; envelope: unknown };
}

export type Subscription = Selectable<SubscriptionsTable>;
export type Invoice = Selectable<InvoicesTable>;
export type CheckoutSession = Selectable<CheckoutSessionsTable>;
