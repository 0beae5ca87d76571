/**
 * WireGuard (X25519) keys as `wg genkey` / `wg pubkey` print them: standard base64 of 32 bytes,
 * 44 characters with one "=" of padding. Only Web Crypto and base64 built-ins are used, so the
 * same code makes keys in the browser (a device whose private key the server never sees).
 */
import { x25519 } from '@noble/curves/ed25519.js';

function toBase64(bytes: Uint8Array): string {
  let binary = '';
  for (const byte of bytes) binary += String.fromCharCode(byte);
  return btoa(binary);
}

function fromBase64(text: string): Uint8Array {
  return Uint8Array.from(atob(text), (c) => c.charCodeAt(0));
}

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
  const privateKey = clampPrivateKey(globalThis.crypto.getRandomValues(new Uint8Array(KEY_BYTES)));
  return { privateKey: toBase64(privateKey), publicKey: toBase64(x25519.getPublicKey(privateKey)) };
}

/**
 * A WireGuard preshared key, as `wg genpsk` makes it: 32 random bytes in base64, mixed into the
 * handshake on both sides as a symmetric secret. Unclamped (it is no curve scalar).
 */
export function generatePresharedKey(): string {
  return toBase64(globalThis.crypto.getRandomValues(new Uint8Array(KEY_BYTES)));
}

export function publicKeyFromPrivate(privateKey: string): string {
  return toBase64(x25519.getPublicKey(decodeKey(privateKey, 'private key')));
}

/** Decodes a key after checking it; the error names the role but never echoes the value. */
export function decodeKey(key: string, role = 'key'): Uint8Array {
  if (!isWireGuardKey(key)) throw new Error(`${role} is not a WireGuard key (base64 of 32 bytes)`);
  return fromBase64(key);
}

/** What `wg genkey` does to random bytes (RFC 7748 §5 "decodeScalar25519"), kept in the stored key. */
function clampPrivateKey(bytes: Uint8Array): Uint8Array {
  const key = Uint8Array.from(bytes);
  key[0] = (key[0] ?? 0) & 248;
  key[31] = ((key[31] ?? 0) & 127) | 64;
  return key;
}
