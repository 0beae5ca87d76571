import { AppError, type KeyRotationDays } from '@qw/contracts';

type KeyedDevice = {
  key_rotation_days: number | null;
  client_keys: boolean;
  is_active: boolean;
  public_key: string | null;
  node_id: string | null;
  ipv4: string | null;
  ipv6: string | null;
};

/** A device an operator revoked the keys of has none until "Request key" makes one. */
export const keysRevoked = () =>
  new AppError('conflict', 'This device\'s keys were revoked. Use "Request key" to make a new one.');

/**
 * What a due scheduled rotation does to the device: `rotate` (a new key, the old one kept for the
 * grace period); `reschedule` (a suspended device's key is on no node and nobody wants new-key
 * mail for a device that is off, nor can a revoked key be rotated: the schedule moves on);
 * `end` (no schedule, or a key made in the browser: the service cannot make the next one).
 */
export function scheduledRotationStep(device: KeyedDevice): 'rotate' | 'reschedule' | 'end' {
  if (!device.key_rotation_days || device.client_keys) return 'end';
  if (!device.is_active || !device.public_key || !device.node_id || !device.ipv4 || !device.ipv6) return 'reschedule';
  return 'rotate';
}

/** Why this schedule cannot be set on the device, or null. Turning it off is always possible. */
export function keyRotationRefusal(
  device: Pick<KeyedDevice, 'client_keys' | 'public_key'>,
  days: KeyRotationDays | null,
): AppError | null {
  if (days === null) return null;
  if (device.client_keys) {
    return new AppError(
      'conflict',
      'This device\'s key was made in your browser, so the service cannot make its next one. Use "Request key" for a key from the service first, or rotate it by hand.',
    );
  }
  if (!device.public_key) return keysRevoked();
  return null;
}
