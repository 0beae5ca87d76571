export const recoveryCodeCount = 10;
export const challengeMinutes = 5;
/** Wrong codes one challenge takes; the account's own count across challenges is in rate-limits.ts. */
export const challengeAttempts = 5;

/** Whether a sign-in's second-factor step still takes a code: not expired, not worn out by wrong codes. */
export function challengeOpen(
  challenge: { expires_at: Date | string; attempts: number } | undefined,
  now: number = Date.now(),
): boolean {
  if (!challenge) return false;
  return new Date(challenge.expires_at).getTime() > now && challenge.attempts < challengeAttempts;
}
