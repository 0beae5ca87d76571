/**
 * Device private keys at rest: AES-256-GCM under PRIVATE_KEY_ENCRYPTION_KEY, sealed as
 * `v1:<iv>:<tag>:<ciphertext>` (base64 each). Pass the device id as `aad`: the ciphertext is then
 * bound to that row, and one copied onto another device fails to open instead of handing over a key.
 */
import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';

const VERSION = 'v1';
const ALGORITHM = 'aes-256-gcm';
const KEY_BYTES = 32;
const IV_BYTES = 12;
const TAG_BYTES = 16;
const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

/** Thrown for a bad encryption key, a malformed or tampered sealed value, or the wrong AAD. */
export class PrivateKeyVaultError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'PrivateKeyVaultError';
  }
}

export function encryptPrivateKey(privateKey: string, encryptionKey: string, aad?: string): string {
  if (privateKey === '') throw new PrivateKeyVaultError('nothing to encrypt: the private key is empty');
  const iv = randomBytes(IV_BYTES);
  const cipher = createCipheriv(ALGORITHM, vaultKey(encryptionKey), iv, { authTagLength: TAG_BYTES });
  if (aad !== undefined) cipher.setAAD(Buffer.from(aad, 'utf8'));
  const ciphertext = Buffer.concat([cipher.update(privateKey, 'utf8'), cipher.final()]);
  const tag = cipher.getAuthTag();
  return `${VERSION}:${iv.toString('base64')}:${tag.toString('base64')}:${ciphertext.toString('base64')}`;
}

export function decryptPrivateKey(sealed: string, encryptionKey: string, aad?: string): string {
  const key = vaultKey(encryptionKey);
  const parts = sealed.split(':');
  const [version, ivText, tagText, ciphertextText] = parts;
  if (parts.length !== 4 || version !== VERSION) {
    throw new PrivateKeyVaultError(`sealed private key is not in the ${VERSION}:<iv>:<tag>:<ciphertext> format`);
  }
  const iv = strictBase64(ivText ?? '');
  const tag = strictBase64(tagText ?? '');
  const ciphertext = strictBase64(ciphertextText ?? '');
  if (iv?.length !== IV_BYTES || tag?.length !== TAG_BYTES || ciphertext === null || ciphertext.length === 0) {
    throw new PrivateKeyVaultError('sealed private key is malformed (bad iv, tag or ciphertext)');
  }
  const decipher = createDecipheriv(ALGORITHM, key, iv, { authTagLength: TAG_BYTES });
  decipher.setAuthTag(tag);
  if (aad !== undefined) decipher.setAAD(Buffer.from(aad, 'utf8'));
  try {
    return Buffer.concat([decipher.update(ciphertext), decipher.final()]).toString('utf8');
  } catch {
    throw new PrivateKeyVaultError(
      'private key could not be decrypted: wrong encryption key, tampered ciphertext, or sealed for another device (AAD)',
    );
  }
}

function vaultKey(encryptionKey: string): Buffer {
  const key = strictBase64(encryptionKey.trim());
  if (key?.length !== KEY_BYTES) {
    throw new PrivateKeyVaultError(
      `encryption key must be ${KEY_BYTES} bytes in base64 (e.g. \`openssl rand -base64 32\`)`,
    );
  }
  return key;
}

/** Buffer.from(…, 'base64') skips bad characters silently; a sealed value must not be "repaired". */
function strictBase64(text: string): Buffer | null {
  return BASE64.test(text) ? Buffer.from(text, 'base64') : null;
}

/**
 * A sealing key's name, kept beside what it sealed: 12 characters of SHA-256 over the key. It says
 * which key opens a row (during a rotation there are two) and tells nothing about the key itself.
 */
export function sealingKeyId(encryptionKey: string): string {
  return createHash('sha256').update(vaultKey(encryptionKey)).digest('base64url').slice(0, 12);
}

/** A private key sealed, and the id of the key that sealed it (stored together). */
export type SealedPrivateKey = { sealed: string; keyId: string };

/**
 * The sealing keys a process holds: it seals with the current one and opens a row with the key the
 * row names. During a rotation the previous key is held too, so rows not yet re-sealed still open;
 * a row that names no key (sealed before rows named theirs) is tried with each key, and AES-GCM's
 * tag says which one sealed it.
 */
export class SealingKeys {
  readonly currentId: string;
  private readonly keys: Map<string, string>;

  constructor(current: string, previous?: string) {
    this.currentId = sealingKeyId(current);
    this.keys = new Map([[this.currentId, current]]);
    if (previous !== undefined) {
      const previousId = sealingKeyId(previous);
      if (previousId === this.currentId) throw new PrivateKeyVaultError('the previous sealing key is the current one');
      this.keys.set(previousId, previous);
    }
  }

  seal(privateKey: string, aad?: string): SealedPrivateKey {
    return { sealed: encryptPrivateKey(privateKey, this.keys.get(this.currentId)!, aad), keyId: this.currentId };
  }

  /** The private key, or PrivateKeyVaultError when no key held opens it. */
  open(sealed: string, keyId: string | null, aad?: string): string {
    if (keyId !== null) {
      const key = this.keys.get(keyId);
      if (key === undefined) throw new PrivateKeyVaultError('sealed by a key this process does not hold');
      return decryptPrivateKey(sealed, key, aad);
    }
    let failure: unknown;
    for (const key of this.keys.values()) {
      try {
        return decryptPrivateKey(sealed, key, aad);
      } catch (error) {
        failure = error;
      }
    }
    throw failure;
  }
}
