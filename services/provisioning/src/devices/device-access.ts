import type { Caller, OrganizationRole } from '@qw/contracts';

/**
 * Who may see and act on a device: the one rule every device operation goes through.
 *
 * - `own`: the device's person: the owner of a personal device, or the member an organization's
 *   device is assigned to. Everything, the configuration (with its private key) included.
 * - `manage`: an owner or admin of the device's organization: everything but the configuration,
 *   which only its person receives.
 * - `operate`: a platform admin, from the operator console: suspend, activate, revoke keys.
 * - `none`: anyone else. Every operation answers it with the same "Device not found." a device
 *   that does not exist gets, so nobody learns which ids exist.
 */
export type DeviceAccess = 'none' | 'operate' | 'manage' | 'own';

export type DeviceOperation = 'view' | 'suspend' | 'activate' | 'rename' | 'remove' | 'request-key' | 'config';

export type DeviceOwnership = { user_id: string; org_id: string | null };

export type { OrganizationRole };

export function deviceAccess(
  device: DeviceOwnership,
  caller: Caller,
  callerRoleInOrg: OrganizationRole | null = null,
): DeviceAccess {
  if (!caller.userId) return 'none';
  if (device.user_id === caller.userId) return 'own';
  if (device.org_id && (callerRoleInOrg === 'owner' || callerRoleInOrg === 'admin')) return 'manage';
  if (caller.isAdmin) return 'operate';
  return 'none';
}

const needs: Record<DeviceOperation, readonly DeviceAccess[]> = {
  view: ['operate', 'manage', 'own'],
  suspend: ['operate', 'manage', 'own'],
  activate: ['operate', 'manage', 'own'],
  rename: ['manage', 'own'],
  remove: ['manage', 'own'],
  'request-key': ['manage', 'own'],
  config: ['own'],
};

export function mayDo(access: DeviceAccess, operation: DeviceOperation): boolean {
  return needs[operation].includes(access);
}
