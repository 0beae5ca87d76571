import { AppError, type Caller, type OrganizationRole } from '@qw/contracts';

/**
 * Who may see and act on a device: the one rule every device operation goes through.
 *
 * - `own`: the device's person: the owner of a personal device, or the member an organization's
 *   device is assigned to. Everything, the configuration (with its private key) included.
 * - `manage`: an owner or admin of the device's organization: everything but the configuration,
 *   which only its person receives.
 * - `see`: an admin of the device's organization when the device is its owner's: it is in their
 *   list, but an admin does nothing to the owner's devices (as they do nothing to the owner as a
 *   member); they are refused with a 403 that says so.
 * - `operate`: a platform admin, from the operator console: suspend, activate, revoke keys.
 * - `none`: anyone else. Every operation answers it with the same "Device not found." a device
 *   that does not exist gets, so nobody learns which ids exist.
 */
export type DeviceAccess = 'none' | 'operate' | 'see' | 'manage' | 'own';

/** `choose-key`: a new key whose public half the caller brings; only the device's person chooses its key. */
export type DeviceOperation =
  | 'view'
  | 'suspend'
  | 'activate'
  | 'rename'
  | 'change-region'
  | 'change-privacy'
  | 'remove'
  | 'request-key'
  | 'choose-key'
  | 'config';

export type DeviceOwnership = { user_id: string; org_id: string | null };

/** `assigneeRoleInOrg`: the device's person's role in its organization (an admin manages no owner's device). */
export function deviceAccess(
  device: DeviceOwnership,
  caller: Caller,
  callerRoleInOrg: OrganizationRole | null = null,
  assigneeRoleInOrg: OrganizationRole | null = null,
): DeviceAccess {
  if (!caller.userId) return 'none';
  if (device.user_id === caller.userId) return 'own';
  if (device.org_id && callerRoleInOrg === 'owner') return 'manage';
  if (device.org_id && callerRoleInOrg === 'admin') return assigneeRoleInOrg === 'owner' ? 'see' : 'manage';
  if (caller.isAdmin) return 'operate';
  return 'none';
}

const needs: Record<DeviceOperation, readonly DeviceAccess[]> = {
  view: ['operate', 'see', 'manage', 'own'],
  suspend: ['operate', 'manage', 'own'],
  activate: ['operate', 'manage', 'own'],
  rename: ['manage', 'own'],
  'change-region': ['manage', 'own'],
  'change-privacy': ['manage', 'own'],
  remove: ['manage', 'own'],
  'request-key': ['manage', 'own'],
  'choose-key': ['own'],
  config: ['own'],
};

export function mayDo(access: DeviceAccess, operation: DeviceOperation): boolean {
  return needs[operation].includes(access);
}

/**
 * Why the caller may not do `operation`, or null. Those who see the device in a list hear why
 * (403); anyone else gets the "Device not found." of a device that does not exist.
 */
export function deviceRefusal(access: DeviceAccess, operation: DeviceOperation): AppError | null {
  if (mayDo(access, operation)) return null;
  if (access === 'see') return new AppError('forbidden', "Only an owner can act on an owner's devices.");
  if (access === 'manage' && operation === 'choose-key')
    return new AppError(
      'forbidden',
      "Only the device's person can choose its key. Request a new key without one instead.",
    );
  return deviceNotFound();
}

/** What a device that does not exist, or that the caller may not know of, answers. */
export const deviceNotFound = () => new AppError('not_found', 'Device not found.');
