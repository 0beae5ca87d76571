import { monthsBetween, utcMonth } from '@qw/contracts';

/** What a customer's cohort depends on: the month and the day of their first payment. */
export type CohortCustomer = { cohort_month: string | null; first_paid_day: string | null };

export type PaymentAttribution = {
  /** The customer after the payment (a new object; the input is left as it was). */
  customer: CohortCustomer;
  /** The month to record as paid, or null when the customer had already paid in it. */
  newMonth: string | null;
  /** Whether the customer's row changed (its cohort, its first payment or its paid months). */
  changed: boolean;
  funnel: Array<{ day: string; first_paid: number }>;
  cells: Array<{ cohort: string; offset: number; customers: number }>;
};

/**
 * A customer paid on `day`, having paid before in `paidMonths`: the month counts for its cohort.
 * The cohort is the month of the first payment; an earlier payment learnt late moves the customer
 * to the earlier cohort, every month it paid in moving with it, and moves its first payment in
 * the funnel.
 */
export function attributePayment(
  before: CohortCustomer,
  paidMonths: ReadonlySet<string>,
  day: string,
): PaymentAttribution {
  const customer = { ...before };
  const month = utcMonth(day);
  const out: PaymentAttribution = { customer, newMonth: null, changed: false, funnel: [], cells: [] };
  if (customer.first_paid_day && day < customer.first_paid_day) {
    out.funnel.push({ day: customer.first_paid_day, first_paid: -1 }, { day, first_paid: 1 });
    customer.first_paid_day = day;
    out.changed = true;
  }
  if (paidMonths.has(month)) return out;
  out.newMonth = month;
  out.changed = true;
  if (customer.cohort_month === null) {
    customer.cohort_month = month;
    customer.first_paid_day = day;
    out.funnel.push({ day, first_paid: 1 });
    out.cells.push({ cohort: month, offset: 0, customers: 1 });
    return out;
  }
  if (month < customer.cohort_month) {
    const previous = customer.cohort_month;
    for (const paid of paidMonths) {
      out.cells.push({ cohort: previous, offset: monthsBetween(previous, paid), customers: -1 });
      out.cells.push({ cohort: month, offset: monthsBetween(month, paid), customers: 1 });
    }
    out.cells.push({ cohort: month, offset: 0, customers: 1 });
    customer.cohort_month = month;
    return out;
  }
  out.cells.push({ cohort: customer.cohort_month, offset: monthsBetween(customer.cohort_month, month), customers: 1 });
  return out;
}
