import type { Kysely } from 'kysely';
import { memberRoleChanged } from '@qw/contracts';
import { consumer } from '@qw/platform';
import type { ProvisioningDatabase } from '../database.ts';
import { applyMembership } from '../organizations/organizations.service.ts';

/** A member's role changed: owners and admins manage every device of the organization, members their own. */
export const memberRoleChangedConsumer = consumer(
  'provisioning.member-role-changed',
  memberRoleChanged,
  (tx: Kysely<ProvisioningDatabase>, e) => applyMembership(tx, e),
);
