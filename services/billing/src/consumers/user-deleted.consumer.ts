import type { Kysely } from 'kysely';
import { userDeleted } from '@qw/contracts';
import { consumer } from '@qw/platform';
import type { BillingDatabase } from '../database.ts';
import { forgetAccount } from '../accounts/account-data.ts';

/**
 * An account was deleted: its plans end and billing forgets its addresses (see `forgetAccount`).
 * The provider is not called inside the event's transaction: the service cancels there after the
 * commit, and retries.
 */
export const userDeletedConsumer = consumer(
  'billing.user-deleted',
  userDeleted,
  (tx: Kysely<BillingDatabase>, { data }) => forgetAccount(tx, data.userId),
);
