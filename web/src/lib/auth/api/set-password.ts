import { api } from '../../api-client';
import type { Session } from '../session-types';

/**
 * POST /api/auth/password/set {token, password} → session: the step after a first email
 * verification; the address is verified from then on. 422 weak_password, 410 link_expired, 404.
 */
export function requestSetPassword(body: { token: string; password: string }): Promise<Session> {
  return api.post<Session>('/api/auth/password/set', body, { skipAuth: true });
}
