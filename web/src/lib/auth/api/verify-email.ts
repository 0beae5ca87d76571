import { api } from '../../api-client';
import type { Session } from '../session-types';

/** POST /api/auth/verify {token} → session (signs the person in); 410 link_expired, 404 not_found. */
export function requestEmailVerification(token: string): Promise<Session> {
  return api.post<Session>('/api/auth/verify', { token }, { skipAuth: true });
}
