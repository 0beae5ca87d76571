import { describe, expect, it } from 'vitest';
import { challengeAttempts, challengeOpen } from '../src/mfa/mfa-rules.ts';

describe('challengeOpen: whether a sign-in’s second-factor step still takes a code', () => {
  const now = Date.parse('2026-03-01T12:00:00Z');
  const challenge = (expiresInMs: number, attempts = 0) => ({ expires_at: new Date(now + expiresInMs), attempts });
  it('open until it expires and until its fifth wrong code', () => {
    expect(challengeAttempts).toBe(5);
    expect(challengeOpen(challenge(1), now)).toBe(true);
    expect(challengeOpen(challenge(60_000, 4), now)).toBe(true);
  });
  it('closed at its expiry time, after it, and once five codes were wrong', () => {
    expect(challengeOpen(challenge(0), now)).toBe(false);
    expect(challengeOpen(challenge(-1), now)).toBe(false);
    expect(challengeOpen(challenge(60_000, 5), now)).toBe(false);
    expect(challengeOpen({ expires_at: '2026-03-01T11:59:59Z', attempts: 0 }, now)).toBe(false);
  });
  it('no challenge is a closed one', () => {
    expect(challengeOpen(undefined, now)).toBe(false);
  });
});
