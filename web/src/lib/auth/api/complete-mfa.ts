import { api } from '../../api-client';
import type { Session } from '../session-types';

/** POST /api/auth/mfa: an authenticator code or a recovery code; 400 wrong code, 401 invalid_token when the challenge ended. */
export function requestMfaSignIn(body: { mfa_token: string; code: string }): Promise<Session> {
  return api.post<Session>('/api/auth/mfa', body, { skipAuth: true });
}
