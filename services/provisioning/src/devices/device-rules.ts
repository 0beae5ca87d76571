import { AppError, isPlatform, knownCountries, type Platform } from '@qw/contracts';
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

/**
 * The country a customer picked for Automatic (ISO 3166-1 alpha-2, any case), upper-cased; one the
 * built-in map does not know is refused (422) rather than placed at random. Absent or empty: none.
 */
export function validCountry(raw: string | null | undefined): string | null {
  if (raw === undefined || raw === null || raw.trim() === '') return null;
  const country = raw.trim().toUpperCase();
  if (!knownCountries.includes(country)) {
    throw new AppError(
      'unprocessable',
      `We do not know the country "${country}". Choose a country from the list, or leave it empty.`,
      { field: 'country' },
    );
  }
  return country;
}
