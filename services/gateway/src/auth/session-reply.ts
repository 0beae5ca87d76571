import type { FastifyReply } from 'fastify';
import type { IssuedSession } from '@qw/contracts';
import { claimsFor } from './caller.ts';

export const refreshCookie = 'qw_refresh';
export const refreshCookiePath = '/api/auth';

export type SessionSettings = { accessTokenSeconds: number; secureCookies: boolean };

/** Access token in the body (kept in memory by the web app); refresh token in an httpOnly cookie. */
export async function sendSession(
  reply: FastifyReply,
  session: IssuedSession,
  settings: SessionSettings,
  status = 200,
) {
  return reply.status(status).send(await startSession(reply, session, settings));
}

/** Sets the refresh cookie and answers the body of a session, for replies that carry more than a session. */
export async function startSession(reply: FastifyReply, session: IssuedSession, settings: SessionSettings) {
  const accessToken = await reply.jwtSign(claimsFor(session.user, session.session_id), {
    expiresIn: settings.accessTokenSeconds,
  });
  reply.setCookie(refreshCookie, session.refresh_token, {
    httpOnly: true,
    sameSite: 'strict',
    secure: settings.secureCookies,
    path: refreshCookiePath,
    expires: new Date(session.refresh_expires_at),
  });
  reply.header('cache-control', 'no-store');
  return {
    access_token: accessToken,
    token_type: 'bearer' as const,
    expires_in: settings.accessTokenSeconds,
    expires_at: Math.floor(Date.now() / 1000) + settings.accessTokenSeconds,
    user: session.user,
  };
}

export function clearSessionCookie(reply: FastifyReply, settings: SessionSettings): void {
  reply.clearCookie(refreshCookie, {
    path: refreshCookiePath,
    httpOnly: true,
    sameSite: 'strict',
    secure: settings.secureCookies,
  });
}
