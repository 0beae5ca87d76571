/** The person in a session answer (POST /api/auth/login, /signup, /mfa, /refresh, /verify). */
export type SessionUser = {
  id: string;
  email: string;
  account_type: string;
  role: string;
  is_admin: boolean;
  email_verified: boolean;
};

/**
 * Spec §3 "Auth session". The access token lives only here, in memory; the refresh token is an
 * httpOnly cookie the page never sees.
 */
export type Session = {
  access_token: string;
  token_type: 'bearer';
  /** Seconds the access token lasts. */
  expires_in: number;
  /** Unix seconds. */
  expires_at: number;
  user: SessionUser;
};

/** POST /api/auth/login when two-factor sign-in is on: the password was right, a code is still needed. */
export type MfaChallenge = { mfa_required: true; mfa_token: string };

/** Spec §4 "Session events from the auth provider". */
export type AuthEvent = 'INITIAL_SESSION' | 'SIGNED_IN' | 'SIGNED_OUT' | 'TOKEN_REFRESHED' | 'PASSWORD_RECOVERY' | 'USER_UPDATED';

export type AuthEventListener = (event: AuthEvent, session: Session | null) => void;

export function isMfaChallenge(value: unknown): value is MfaChallenge {
  return typeof value === 'object' && value !== null && (value as { mfa_required?: unknown }).mfa_required === true;
}
