/**
 * WireGuard (X25519) keys as `wg genkey` / `wg pubkey` print them: standard base64 of 32 bytes,
 * 44 characters with one "=" of padding.
 */
import { randomBytes } from 'node:crypto';
import { x25519 } from '@noble/curves/ed25519.js';

export type KeyPair = { privateKey: string; publicKey: string };

const KEY_BYTES = 32;
/**
 * 43 base64 characters carry 258 bits; the last one must leave the 2 spare bits zero, as `wg`
 * demands, so each key has exactly one accepted spelling and keys can be compared as strings.
 */
const WIREGUARD_KEY = /^[A-Za-z0-9+/]{42}[AEIMQUYcgkosw048]=$/;

export function isWireGuardKey(value: unknown): value is string {
  return typeof value === 'string' && WIREGUARD_KEY.test(value);
}

export function generateKeyPair(): KeyPair {
  const privateKey = clampPrivateKey(randomBytes(KEY_BYTES));
  return {
    privateKey: Buffer.from(privateKey).toString('base64'),
    publicKey: Buffer.from(x25519.getPublicKey(privateKey)).toString('base64'),
  };
}

export function publicKeyFromPrivate(privateKey: string): string {
  return Buffer.from(x25519.getPublicKey(decodeKey(privateKey, 'private key'))).toString('base64');
}

/** Decodes a key after checking it; the error names the role but never echoes the value. */
export function decodeKey(key: string, role = 'key'): Uint8Array {
  if (!isWireGuardKey(key)) throw new Error(`${role} is not a WireGuard key (base64 of 32 bytes)`);
  return new Uint8Array(Buffer.from(key, 'base64'));
}

/** What `wg genkey` does to random bytes (RFC 7748 §5 "decodeScalar25519"), kept in the stored key. */
function clampPrivateKey(bytes: Uint8Array): Uint8Array {
  const key = Uint8Array.from(bytes);
  key[0] = (key[0] ?? 0) & 248;
  key[31] = ((key[31] ?? 0) & 127) | 64;
  return key;
}
