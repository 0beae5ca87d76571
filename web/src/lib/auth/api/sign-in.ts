import { api } from '../../api-client';
import type { MfaChallenge, Session } from '../session-types';

/** POST /api/auth/login: a session, or a two-factor challenge; 401 invalid_credentials, 429 rate_limited. */
export function requestSignIn(body: { email: string; password: string }): Promise<Session | MfaChallenge> {
  return api.post<Session | MfaChallenge>('/api/auth/login', body, { skipAuth: true });
}
