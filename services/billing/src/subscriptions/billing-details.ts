import { randomUUID } from 'node:crypto';
import type { Kysely } from 'kysely';
import { AppError, type BillingDetails } from '@qw/contracts';
import type { BillingDatabase } from '../database.ts';
import type { BillingOwner } from './subscriptions.service.ts';

type Db = Kysely<BillingDatabase>;

const none: BillingDetails = { company_name: '', address: '', vat_id: '' };

/** One line of text: spaces collapsed, ends trimmed (the address keeps its line breaks). */
const oneLine = (value: string) => value.replace(/\s+/g, ' ').trim();
const lines = (value: string) => value.split(/\r?\n/).map(oneLine).filter(Boolean).join('\n');

/**
 * What is stored: the company name and VAT ID on one line (the VAT ID in capitals, without
 * spaces, as tax offices write it), the address line by line. A VAT ID is letters and digits.
 */
export function normalizeBillingDetails(input: BillingDetails): BillingDetails {
  const details = {
    company_name: oneLine(input.company_name),
    address: lines(input.address),
    vat_id: input.vat_id.replace(/[\s.-]/g, '').toUpperCase(),
  };
  if (details.vat_id && !/^[A-Z]{2}[A-Z0-9]{2,14}$/.test(details.vat_id))
    throw new AppError(
      'validation_failed',
      'A VAT ID starts with its country’s two letters followed by 2 to 14 letters or digits, such as DE123456789.',
      { field: 'vat_id' },
    );
  return details;
}

/** The billing details of a person or an organization; empty strings when none were set. */
export async function billingDetailsOf(db: Db, owner: BillingOwner): Promise<BillingDetails> {
  const query = db.selectFrom('billing_details').select(['company_name', 'address', 'vat_id']);
  const row = await ('orgId' in owner
    ? query.where('org_id', '=', owner.orgId)
    : query.where('user_id', '=', owner.userId)
  ).executeTakeFirst();
  return row ?? none;
}

/** Sets them as a whole (an empty field clears it); receipts show them from then on. */
export async function setBillingDetails(db: Db, owner: BillingOwner, input: BillingDetails): Promise<BillingDetails> {
  const details = normalizeBillingDetails(input);
  await db
    .insertInto('billing_details')
    .values({
      id: randomUUID(),
      user_id: 'userId' in owner ? owner.userId : null,
      org_id: 'orgId' in owner ? owner.orgId : null,
      ...details,
    })
    .onConflict((oc) =>
      oc.column('userId' in owner ? 'user_id' : 'org_id').doUpdateSet({ ...details, updated_at: new Date() }),
    )
    .execute();
  return details;
}

/** The receipt's billing details: its organization's, else its person's; null when none are set. */
export async function receiptBillingDetails(
  db: Db,
  invoice: { user_id: string | null; org_id: string | null },
): Promise<BillingDetails | null> {
  const owner: BillingOwner | null = invoice.org_id
    ? { orgId: invoice.org_id }
    : invoice.user_id
      ? { userId: invoice.user_id }
      : null;
  if (!owner) return null;
  const details = await billingDetailsOf(db, owner);
  return details.company_name || details.address || details.vat_id ? details : null;
}
