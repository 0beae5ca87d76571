import type { Kysely } from 'kysely';
import { userDeleted } from '@qw/contracts';
import { consumer } from '@qw/platform';
import type { BillingDatabase } from '../database.ts';
import type { PaymentProvider } from '../providers/payment-provider.ts';
import { forgetAccount } from '../accounts/account-data.ts';

/** An account was deleted: its plans end and billing forgets its addresses (see `forgetAccount`). */
export function userDeletedConsumer(provider: PaymentProvider) {
  return consumer('billing.user-deleted', userDeleted, (tx: Kysely<BillingDatabase>, { data }) =>
    forgetAccount(tx, provider, data.userId),
  );
}
