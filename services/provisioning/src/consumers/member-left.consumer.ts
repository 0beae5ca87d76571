import type { Kysely } from 'kysely';
import { memberLeft } from '@qw/contracts';
import { consumer } from '@qw/platform';
import type { ProvisioningDatabase } from '../database.ts';
import { applyMemberLeft } from '../organizations/organizations.service.ts';

/** A member left or was removed: their devices in that organization go, peers and addresses with them. */
export const memberLeftConsumer = consumer(
  'provisioning.member-left',
  memberLeft,
  (tx: Kysely<ProvisioningDatabase>, e) => applyMemberLeft(tx, e),
);
