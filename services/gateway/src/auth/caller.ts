import { createHmac } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import {
  AppError,
  anonymousCaller,
  type Authority,
  type Caller,
  type OrganizationRole,
  type SessionUser,
} from '@qw/contracts';
import { clientAddress, ipv6NetworkKey } from './client-address.ts';

/** `sid`: the session the token belongs to; when it ends (sign-out, an operator's removal), so does the token. */
export type AccessClaims = {
  sub: string;
  sid?: string;
  acct: string;
  role: string;
  adm: boolean;
  ver: boolean;
  /** Set by signing: when the token expires (unix seconds). */
  exp?: number;
};

/** Access tokens name their purpose; a token signed for anything else is refused where they are read. */
export const accessTokenAudience = 'quietwire-access';

declare module '@fastify/jwt' {
  interface FastifyJWT {
    payload: AccessClaims;
    user: AccessClaims;
  }
}

declare module 'fastify' {
  interface FastifyRequest {
    caller: Caller;
    /** Identity could not say what this person may do: they are served without admin rights. */
    authorityUnknown?: AppError;
    /** The signed-in person's role in each organization they belong to, by organization id (identity's answer). */
    organizations?: ReadonlyMap<string, OrganizationRole>;
    /**
     * Asks identity again, past the cache, and updates `caller` and `organizations`: the route
     * table refuses an organization route only on an answer asked for this request (one a second
     * old may not know of the invitation just accepted).
     */
    reaskAuthority?: () => Promise<void>;
  }
}

export function claimsFor(user: SessionUser, sessionId: string): AccessClaims {
  return {
    sub: user.id,
    sid: sessionId,
    acct: user.account_type,
    role: user.role,
    adm: user.is_admin,
    ver: user.email_verified,
  };
}

/**
 * The Caller services will believe, from the access token's claims and identity's answer about the
 * person now: an account that is gone is refused (401, so the web app signs out), and admin rights
 * need both. The token's admin claim alone is 15 minutes old at worst; identity's answer alone does
 * not know whether this session passed the second factor, which the claim required.
 */
export function callerOf(claims: AccessClaims, authority: Authority): Omit<Caller, 'assertion'> {
  if (!authority.active) throw new AppError('invalid_token', 'Your session has ended. Please sign in again.');
  return {
    userId: claims.sub,
    accountType: authority.account_type ?? claims.acct,
    isAdmin: claims.adm && authority.is_admin,
    emailVerified: authority.email_verified,
  };
}

/**
 * Reads the bearer token, if any, and turns it into the Caller that services will believe (see
 * `callerOf`), with the gateway's signed assertion of it. A missing token leaves the caller
 * anonymous (routes that need a person say so in their contract's `access`); a bad or expired one
 * is refused, so the web app knows to refresh. When identity cannot answer, the person is served
 * as their token says, but never as an admin (the console answers 503 then, see `accessRefusal` in http/route-access.ts).
 */
export function identifyCaller(
  assert: (caller: Caller) => Caller,
  authority: (claims: AccessClaims, token: string, options: { fresh: boolean }) => Promise<Authority>,
  /** Verifies the header's token (`request.jwtVerify`), or believes one that verified before (verified-tokens.ts). */
  verified: (header: string, verify: () => Promise<AccessClaims>) => Promise<AccessClaims>,
) {
  return async (request: FastifyRequest): Promise<void> => {
    request.caller = anonymousCaller;
    const header = request.headers.authorization;
    if (!header) return;
    if (!/^bearer\s+\S+$/i.test(header))
      throw new AppError('invalid_token', 'The Authorization header must be "Bearer <token>".');
    let claims: AccessClaims;
    try {
      claims = await verified(header, () => request.jwtVerify<AccessClaims>());
    } catch {
      throw new AppError('invalid_token', 'Your session has expired. Please sign in again.');
    }
    const token = header.slice(header.lastIndexOf('.') + 1);
    const learn = async (fresh: boolean) => {
      let now: Authority;
      try {
        now = await authority(claims, token, { fresh });
      } catch (error) {
        if (!(error instanceof AppError) || !['unavailable', 'timeout'].includes(error.code)) throw error;
        request.log.warn({ code: error.code }, 'identity did not answer for rights; serving without admin rights');
        request.authorityUnknown = new AppError('unavailable', 'The console is unavailable for a moment. Try again.');
        now = {
          active: true,
          is_admin: false,
          email_verified: claims.ver,
          account_type: claims.acct,
          organizations: [],
        };
        request.caller = assert(callerOf(claims, now));
        // Nobody could say which organizations are theirs: the services that own them decide.
        delete request.organizations;
        return;
      }
      delete request.authorityUnknown;
      request.caller = assert(callerOf(claims, now));
      request.organizations = new Map(now.organizations.map(({ id, role }) => [id, role]));
    };
    await learn(false);
    request.reaskAuthority = () => learn(true);
  };
}

/**
 * The client's address, reduced to a keyed hash: enough to count attempts, useless to identify
 * anyone. An IPv6 client counts by its /64, the block one subscriber line gets, so hopping
 * through its addresses does not escape a limit.
 */
export function addressKey(request: FastifyRequest, key: string): string {
  return createHmac('sha256', key)
    .update(ipv6NetworkKey(clientAddress(request)))
    .digest('base64url')
    .slice(0, 32);
}

/**
 * State-changing requests from a browser must come from our own origin. Requests without an
 * Origin header (other programs) carry no ambient credentials except the SameSite=Strict cookie.
 */
export function checkOrigin(publicUrl: string, exempt: (path: string) => boolean) {
  const allowed = new URL(publicUrl).origin;
  return async (request: FastifyRequest, _reply: FastifyReply) => {
    if (['GET', 'HEAD', 'OPTIONS'].includes(request.method)) return;
    const path = request.url.split('?')[0] ?? '';
    if (!path.startsWith('/api/') || exempt(path)) return;
    const origin = request.headers.origin;
    if (origin !== undefined && origin !== allowed) throw new AppError('forbidden', 'Cross-site request refused.');
  };
}
