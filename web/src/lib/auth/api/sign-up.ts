import { api } from '../../api-client';
import type { Session } from '../session-types';

/**
 * POST /api/auth/signup → 201 session; 409 already_exists, 422 weak_password, 400 validation_failed.
 * Mails a verification link, unless `invitation_token` is an open invitation to the same address
 * (that mail proved it: the account starts confirmed).
 */
export function requestSignUp(body: { email: string; password: string; invitation_token?: string }): Promise<Session> {
  return api.post<Session>('/api/auth/signup', body, { skipAuth: true });
}
