/**
 * Device private keys at rest: AES-256-GCM under PRIVATE_KEY_ENCRYPTION_KEY, sealed as
 * `v1:<iv>:<tag>:<ciphertext>` (base64 each). Pass the device id as `aad`: the ciphertext is then
 * bound to that row, and one copied onto another device fails to open instead of handing over a key.
 */
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';

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
