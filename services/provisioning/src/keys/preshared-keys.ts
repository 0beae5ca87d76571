import { generatePresharedKey, type SealingKeys } from '@qw/wireguard';

/**
 * A device's preshared key (issue #25): made with each new key pair, sealed at rest as the private
 * key is, with its own AAD so the two sealed values of one row cannot stand in for each other.
 */
const aad = (deviceId: string) => `psk:${deviceId}`;

export type SealedPresharedKey = { preshared_key_sealed: string | null; preshared_key_sealed_by: string | null };

/** A new preshared key for the device, sealed for its row. */
export function newPresharedKey(vault: SealingKeys, deviceId: string): SealedPresharedKey {
  const sealed = vault.seal(generatePresharedKey(), aad(deviceId));
  return { preshared_key_sealed: sealed.sealed, preshared_key_sealed_by: sealed.keyId };
}

/** The key in the clear, to render a config or tell the device's node; null for a device made before them. */
export function openPresharedKey(vault: SealingKeys, deviceId: string, row: SealedPresharedKey): string | null {
  if (!row.preshared_key_sealed) return null;
  return vault.open(row.preshared_key_sealed, row.preshared_key_sealed_by, aad(deviceId));
}

/** Re-seals one with the current key (the sealing key's rotation). */
export function resealPresharedKey(vault: SealingKeys, deviceId: string, row: SealedPresharedKey): SealedPresharedKey {
  const key = openPresharedKey(vault, deviceId, row);
  if (key === null) return { preshared_key_sealed: null, preshared_key_sealed_by: null };
  const sealed = vault.seal(key, aad(deviceId));
  return { preshared_key_sealed: sealed.sealed, preshared_key_sealed_by: sealed.keyId };
}
