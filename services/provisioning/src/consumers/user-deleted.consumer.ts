import type { Kysely } from 'kysely';
import { userDeleted } from '@qw/contracts';
import { consumer } from '@qw/platform';
import type { ProvisioningDatabase } from '../database.ts';
import { forgetAccountDevices } from '../devices/account-devices.ts';

/** An account was deleted: its devices go, peers and keys with them, on every node. */
export const userDeletedConsumer = consumer(
  'provisioning.user-deleted',
  userDeleted,
  (tx: Kysely<ProvisioningDatabase>, event) => forgetAccountDevices(tx, event.data.userId, event.id),
);
