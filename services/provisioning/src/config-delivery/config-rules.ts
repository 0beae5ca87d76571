import { createHash, randomBytes } from 'node:crypto';
import { AppError } from '@qw/contracts';
import { keysRevoked } from '../keys/key-rules.ts';

/** A download link (the file, or its QR code) works once, within this many seconds. */
export const configLinkSeconds = 60;

export const newLinkToken = () => randomBytes(32).toString('base64url');

/** Links are kept by their hash only: the database never holds a token that would work. */
export const hashLinkToken = (token: string) => createHash('sha256').update(token).digest('base64url');

type KeyState = { public_key: string | null; private_key_sealed: string | null; node_id: string | null };

/**
 * A suspended device has no peer on its node, so its configuration would not connect: neither
 * the file, its links nor the browser's peer information are given until it is active again.
 */
export function suspendedConfigRefusal(device: { is_active: boolean }): AppError | null {
  return device.is_active
    ? null
    : new AppError(
        'conflict',
        'This device is suspended, so its configuration is not available. It can be downloaded again once the device is active.',
      );
}

/**
 * Why the service cannot write this device's configuration file, or null when it can: its keys
 * were revoked, or its private key was made in the browser (only that browser has it).
 */
export function configRefusal(device: KeyState): AppError | null {
  if (!device.public_key) return keysRevoked();
  if (!device.private_key_sealed || !device.node_id) {
    return new AppError(
      'conflict',
      'This device was set up with a key made in your browser, so only that browser has its private key. Use "Request key" to make a new one.',
    );
  }
  return null;
}

/** What the configuration mail's job says, checked at sending time: nothing goes for a key replaced since. */
export function configMailCurrent(
  device: { private_key_sealed: string | null; node_id: string | null; key_created_at: Date | string | null },
  payload: Record<string, unknown>,
): boolean {
  if (!device.private_key_sealed || !device.node_id || !device.key_created_at) return false;
  return new Date(device.key_created_at).toISOString() === payload.keyCreatedAt;
}
