import type { Kysely } from 'kysely';
import { memberJoined } from '@qw/contracts';
import { consumer } from '@qw/platform';
import type { ProvisioningDatabase } from '../database.ts';
import { applyMembership } from '../organizations/organizations.service.ts';

/** A person joined an organization: they may add and see its devices as their role allows. */
export const memberJoinedConsumer = consumer(
  'provisioning.member-joined',
  memberJoined,
  (tx: Kysely<ProvisioningDatabase>, e) => applyMembership(tx, e),
);
