import { createHash } from 'node:crypto';

/** 12 characters of SHA-256 over a secret: names it in a token's header and tells nothing about it. */
export function secretId(secret: string): string {
  return createHash('sha256').update(secret).digest('base64url').slice(0, 12);
}

/**
 * The secrets of access tokens (HS256). Each token names the secret that signed it in its `kid`
 * header; the gateway signs with JWT_SECRET and verifies with the secret a token names, so while
 * JWT_SECRET is replaced, JWT_SECRET_PREVIOUS still verifies the tokens signed before the change
 * until they expire, and nobody is signed out by it. A token naming no secret was signed before
 * tokens named theirs, by JWT_SECRET; one naming a secret not held is refused.
 */
export function accessTokenSecrets(current: string, previous?: string) {
  const kid = secretId(current);
  const held = new Map([[kid, current]]);
  if (previous !== undefined) held.set(secretId(previous), previous);
  return {
    kid,
    signing: current,
    verifying(tokenKid: unknown): string {
      if (tokenKid === undefined) return current;
      const secret = typeof tokenKid === 'string' ? held.get(tokenKid) : undefined;
      if (secret === undefined) throw new Error('the access token names a secret this gateway does not hold');
      return secret;
    },
  };
}
