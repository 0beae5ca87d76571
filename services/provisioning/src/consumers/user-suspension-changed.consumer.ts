import type { Kysely } from 'kysely';
import { userSuspensionChanged } from '@qw/contracts';
import { consumer } from '@qw/platform';
import type { ProvisioningDatabase } from '../database.ts';
import { applyAccountSuspension } from '../account-standing/account-standing.service.ts';

/** The operator suspended an account (its devices stop) or lifted it (those it held come back). */
export const userSuspensionChangedConsumer = consumer(
  'provisioning.user-suspension-changed',
  userSuspensionChanged,
  (tx: Kysely<ProvisioningDatabase>, event) => applyAccountSuspension(tx, event),
);
