import type { Kysely } from 'kysely';
import {
  deviceActivated,
  deviceCreated,
  deviceRemoved,
  devicePrivacyChanged,
  deviceRenamed,
  deviceSuspended,
  keyRotated,
} from '@qw/contracts';
import { consumer } from '@qw/platform';
import type { IdentityDatabase } from '../database.ts';
import { recordDeviceEvent } from '../audit/audit.service.ts';

type Db = Kysely<IdentityDatabase>;

/**
 * The organizations' audit log gathers provisioning's device changes (organization devices only):
 * one durable consumer per subject.
 */
export const deviceAuditConsumers = [
  consumer('identity.audit-device-created', deviceCreated, (tx: Db, e) => recordDeviceEvent(tx, 'device.added', e)),
  consumer('identity.audit-device-renamed', deviceRenamed, (tx: Db, e) => recordDeviceEvent(tx, 'device.renamed', e)),
  consumer('identity.audit-device-privacy-changed', devicePrivacyChanged, (tx: Db, e) =>
    recordDeviceEvent(tx, 'device.privacy_changed', e),
  ),
  consumer('identity.audit-device-suspended', deviceSuspended, (tx: Db, e) =>
    recordDeviceEvent(tx, 'device.suspended', e),
  ),
  consumer('identity.audit-device-activated', deviceActivated, (tx: Db, e) =>
    recordDeviceEvent(tx, 'device.activated', e),
  ),
  consumer('identity.audit-device-removed', deviceRemoved, (tx: Db, e) => recordDeviceEvent(tx, 'device.removed', e)),
  consumer('identity.audit-key-rotated', keyRotated, (tx: Db, e) => recordDeviceEvent(tx, 'device.key_rotated', e)),
];
