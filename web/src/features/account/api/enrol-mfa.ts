import type { mfaEnrolRoute, RouteAnswer } from '@qw/contracts';
import { useMutation } from '@tanstack/react-query';
import { api } from '../../../lib/api-client';
import { meKey } from '../../../lib/auth/api/get-me';

/** POST /api/me/mfa/enrol → a new secret, its otpauth URL and a QR code (PNG data URL). Two-factor stays off until confirmed. */
export type MfaEnrolment = RouteAnswer<typeof mfaEnrolRoute>;

export const enrolMfaKey = [...meKey, 'mfa', 'enrol'] as const;

export function enrolMfa(): Promise<MfaEnrolment> {
  return api.post<MfaEnrolment>('/api/me/mfa/enrol');
}

export function useEnrolMfa() {
  return useMutation({ mutationKey: enrolMfaKey, mutationFn: enrolMfa });
}
