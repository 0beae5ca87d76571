import type { EmailVerification } from '@qw/contracts';
import { api } from '../../api-client';

/**
 * POST /api/auth/verify {token}, with this browser's session when it has one. Sent from a session
 * of the account itself, the address is confirmed (`step: 'verified'`) and nothing ends; otherwise
 * every session of the account ends and the answer is a short-lived token for choosing the password
 * (`step: 'choose_password'`: whoever signed up may not own the address); 410 link_expired or
 * link_used, 404 not_found.
 */
export function requestEmailVerification(token: string): Promise<EmailVerification> {
  return api.post<EmailVerification>('/api/auth/verify', { token });
}
