import type { FastifyReply } from 'fastify';
import { Type } from 'typebox';
import type { IssuedSession } from '@qw/contracts';
import { claimsFor } from './caller.ts';

export const refreshCookie = 'qw_refresh';
export const refreshCookiePath = '/api/auth';

export const SessionUserBody = Type.Object({
  id: Type.String(), email: Type.String(), account_type: Type.String(), role: Type.String(),
  is_admin: Type.Boolean(), email_verified: Type.Boolean(),
});
export const SessionBody = Type.Object({
  access_token: Type.String(),
  token_type: Type.Literal('bearer'),
  expires_in: Type.Integer(),
  expires_at: Type.Integer({ description: 'unix seconds' }),
  user: SessionUserBody,
});

export type SessionSettings = { accessTokenSeconds: number; secureCookies: boolean };

/** Access token in the body (kept in memory by the web app); refresh token in an httpOnly cookie. */
export async function sendSession(reply: FastifyReply, session: IssuedSession, settings: SessionSettings, status = 200) {
  const accessToken = await reply.jwtSign(claimsFor(session.user), { expiresIn: settings.accessTokenSeconds });
  reply.setCookie(refreshCookie, session.refresh_token, {
    httpOnly: true,
    sameSite: 'strict',
    secure: settings.secureCookies,
    path: refreshCookiePath,
    expires: new Date(session.refresh_expires_at),
  });
  reply.header('cache-control', 'no-store');
  return reply.status(status).send({
    access_token: accessToken,
    token_type: 'bearer' as const,
    expires_in: settings.accessTokenSeconds,
    expires_at: Math.floor(Date.now() / 1000) + settings.accessTokenSeconds,
    user: session.user,
  });
}

export function clearSessionCookie(reply: FastifyReply, settings: SessionSettings): void {
  reply.clearCookie(refreshCookie, { path: refreshCookiePath, httpOnly: true, sameSite: 'strict', secure: settings.secureCookies });
}
