import type { Kysely } from 'kysely';
import { organizationStatusChanged } from '@qw/contracts';
import { consumer } from '@qw/platform';
import type { ProvisioningDatabase } from '../database.ts';
import { applyOrganizationStatus } from '../organizations/organizations.service.ts';

/** Suspended: the organization's devices stop. Active again: those its suspension held come back. */
export const organizationStatusChangedConsumer = consumer(
  'provisioning.organization-status-changed',
  organizationStatusChanged,
  (tx: Kysely<ProvisioningDatabase>, e) => applyOrganizationStatus(tx, e),
);
