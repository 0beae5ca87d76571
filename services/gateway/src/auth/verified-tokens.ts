import { dropExpired } from './time-ordered.ts';

/**
 * Access tokens verified once and believed again until they expire (issue #24). A signed token
 * cannot change, and the keys that verify it are the process's configuration, so verifying the
 * same token again can only give the same answer until its `exp`: the decode, key lookup and HMAC
 * of @fastify/jwt were about a twentieth of the gateway's CPU per request. What a token no longer
 * allows (the session ended, the account gone, rights taken away) is identity's answer, asked
 * per request as before (`AuthorityCache`), never this cache's.
 *
 * The key is the whole Authorization header, so only a header that verified before is believed
 * again; a failure is never remembered. A token without `exp` is verified every time.
 */
export function rememberedVerifications<Claims extends { exp?: number }>(
  options: { max?: number; now?: () => number } = {},
): (header: string, verify: () => Promise<Claims>) => Promise<Claims> {
  const max = options.max ?? 10_000;
  const now = options.now ?? Date.now;
  const verified = new Map<string, { claims: Claims; until: number }>();
  return async (header, verify) => {
    const at = now();
    const held = verified.get(header);
    if (held && held.until > at) return held.claims;
    verified.delete(header);
    const claims = await verify();
    if (typeof claims.exp !== 'number') return claims;
    dropExpired(verified, at, max);
    verified.set(header, { claims, until: claims.exp * 1000 });
    return claims;
  };
}
