import type { MfaChallenge as MfaChallengeAnswer, SessionBody } from '@qw/contracts';

/** The person in a session answer (POST /api/auth/login, /signup, /mfa, /refresh, /password/set). */
export type SessionUser = Session['user'];

/**
 * Spec §3 "Auth session". The access token lives only here, in memory; the refresh token is an
 * httpOnly cookie the page never sees.
 */
export type Session = SessionBody;

/** POST /api/auth/login when two-factor sign-in is on: the password was right, a code is still needed. */
export type MfaChallenge = MfaChallengeAnswer;

/** Spec §4 "Session events from the auth provider". */
export type AuthEvent =
  | 'INITIAL_SESSION'
  | 'SIGNED_IN'
  | 'SIGNED_OUT'
  | 'TOKEN_REFRESHED'
  | 'PASSWORD_RECOVERY'
  | 'USER_UPDATED';

export type AuthEventListener = (event: AuthEvent, session: Session | null) => void;

export function isMfaChallenge(value: unknown): value is MfaChallenge {
  return typeof value === 'object' && value !== null && (value as { mfa_required?: unknown }).mfa_required === true;
}
