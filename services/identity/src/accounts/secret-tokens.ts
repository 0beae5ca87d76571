import { createHash, randomBytes } from 'node:crypto';

/** A token for a link or a cookie: 256 random bits, URL-safe. */
export function newSecretToken(): string {
  return randomBytes(32).toString('base64url');
}

/** Only this is stored, so a leaked table gives no usable token. */
export function hashSecretToken(token: string): string {
  return createHash('sha256').update(token).digest('base64url');
}
