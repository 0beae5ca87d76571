import { AppError, isPlatform, type Platform } from '@qw/contracts';
import { isWireGuardKey } from '@qw/wireguard';

export function validPlatform(raw: unknown): Platform {
  if (!isPlatform(raw)) throw new AppError('validation_failed', 'Invalid platform.', { field: 'platform' });
  return raw;
}

/** The public key a browser brings for a device it made the key pair of, when it brings one. */
export function validPublicKey(raw: string | undefined): string | undefined {
  if (raw !== undefined && !isWireGuardKey(raw)) {
    throw new AppError('validation_failed', 'The public key must be a WireGuard key (44 characters of base64).', {
      field: 'public_key',
    });
  }
  return raw;
}
