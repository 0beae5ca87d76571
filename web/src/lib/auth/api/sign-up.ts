import { api } from '../../api-client';
import type { Session } from '../session-types';

/** POST /api/auth/signup → 201 session; 409 already_exists, 422 weak_password, 400 validation_failed. Mails a verification link. */
export function requestSignUp(body: { email: string; password: string }): Promise<Session> {
  return api.post<Session>('/api/auth/signup', body, { skipAuth: true });
}
