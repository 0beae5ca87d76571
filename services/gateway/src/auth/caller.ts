import { createHmac } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import {
  AppError,
  anonymousCaller,
  requireAdmin as requireAdminCaller,
  requireUserId,
  type Caller,
  type SessionUser,
} from '@qw/contracts';
import { ipv6NetworkKey } from './client-address.ts';

export type AccessClaims = { sub: string; acct: string; role: string; adm: boolean; ver: boolean };

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
  }
}

export function claimsFor(user: SessionUser): AccessClaims {
  return { sub: user.id, acct: user.account_type, role: user.role, adm: user.is_admin, ver: user.email_verified };
}

/**
 * Reads the bearer token, if any, and turns it into the Caller that services will believe: the
 * claims plus the gateway's signed assertion of them. A missing token leaves the caller
 * anonymous (routes that need a person say so); a bad or expired one is refused, so the web app
 * knows to refresh.
 */
export function identifyCaller(assert: (caller: Caller) => Caller) {
  return async (request: FastifyRequest): Promise<void> => {
    request.caller = anonymousCaller;
    const header = request.headers.authorization;
    if (!header) return;
    if (!/^bearer\s+\S+$/i.test(header))
      throw new AppError('invalid_token', 'The Authorization header must be "Bearer <token>".');
    let claims: AccessClaims;
    try {
      claims = await request.jwtVerify<AccessClaims>();
    } catch {
      throw new AppError('invalid_token', 'Your session has expired. Please sign in again.');
    }
    request.caller = assert({
      userId: claims.sub,
      accountType: claims.acct,
      isAdmin: claims.adm,
      emailVerified: claims.ver,
    });
  };
}

export function requireSignedIn(request: FastifyRequest): Caller {
  requireUserId(request.caller);
  return request.caller;
}

/**
 * The client's address, reduced to a keyed hash: enough to count attempts, useless to identify
 * anyone. An IPv6 client counts by its /64, the block one subscriber line gets, so hopping
 * through its addresses does not escape a limit.
 */
export function addressKey(request: FastifyRequest, key: string): string {
  return createHmac('sha256', key).update(ipv6NetworkKey(request.ip)).digest('base64url').slice(0, 32);
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

/** The admin console's gate: a signed-in platform admin, or 401/403 before any service is asked. */
export function requireAdmin(request: FastifyRequest): Caller {
  requireAdminCaller(request.caller);
  return request.caller;
}
