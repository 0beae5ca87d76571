import type { SetPasswordGrant } from '@qw/contracts';
import { api } from '../../api-client';

/**
 * POST /api/auth/verify {token} → a short-lived token for choosing the password (no session: whoever
 * signed up may not own the address; every session of the account has just ended); 410
 * link_expired, 404 not_found.
 */
export function requestEmailVerification(token: string): Promise<SetPasswordGrant> {
  return api.post<SetPasswordGrant>('/api/auth/verify', { token }, { skipAuth: true });
}
