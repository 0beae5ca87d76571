import type { Kysely } from 'kysely';
import { requireUserId, type Caller } from '@qw/contracts';
import type { Device, ProvisioningDatabase } from '../database.ts';
import { projectedRole } from '../organizations/organizations.service.ts';
import {
  deviceAccess,
  deviceNotFound,
  deviceRefusal,
  type DeviceAccess,
  type DeviceOperation,
} from './device-access.ts';
import { lockDevice } from './devices.repository.ts';

/**
 * A device the caller may do `operation` to, locked for the transaction, and what the caller is
 * to it. The device access policy decides, knowing the caller's role in the device's
 * organization; a device the caller may not touch is "not found", like one that does not exist.
 * Every part that changes a device (its settings, keys, configuration) starts here.
 */
export async function deviceFor(
  tx: Kysely<ProvisioningDatabase>,
  caller: Caller,
  deviceId: string,
  operation: DeviceOperation,
): Promise<{ device: Device; access: DeviceAccess }> {
  const userId = requireUserId(caller);
  const device = await lockDevice(tx, deviceId);
  if (!device) throw deviceNotFound();
  // Roles from the copy only, never an RPC under the device's lock: identity's membership changes
  // answer once the copy has them (read-your-writes), and a member is in it before anyone after them.
  const role = device.org_id && device.user_id !== userId ? await projectedRole(tx, device.org_id, userId) : null;
  // An admin manages no owner's device: the assignee's role matters only to an admin.
  const assigneeRole =
    device.org_id && role === 'admin' ? await projectedRole(tx, device.org_id, device.user_id) : null;
  const access = deviceAccess(device, caller, role, assigneeRole);
  const refusal = deviceRefusal(access, operation);
  if (refusal) throw refusal;
  return { device, access };
}
