import { api } from '../../api-client';
import type { Session } from '../session-types';

/**
 * POST /api/auth/refresh: trades the httpOnly refresh cookie for a new session; the cookie
 * rotates. Never two at once (a reused refresh token ends the whole session family): only the
 * session manager calls this, single-flight and under a cross-tab lock. Without a refresh cookie
 * (nobody signed in on this browser) it answers 204: undefined here.
 */
export function requestRefresh(): Promise<Session | undefined> {
  return api.post<Session | undefined>('/api/auth/refresh', undefined, { skipAuth: true });
}
