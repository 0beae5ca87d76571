import { describe, expect, it } from 'vitest';
import { callbackFailureText, callbackTexts } from '../src/features/auth/components/auth-callback';
import { isAlreadyRegistered } from '../src/features/checkout/components/post-checkout';
import { ApiError } from '../src/lib/api-client';

/** The web tells errors apart by their stable code, never by the wording of the message. */

describe('post-checkout: an already-registered sign-up (spec §5)', () => {
  it('is recognised by the code already_exists whatever the message says', () => {
    expect(isAlreadyRegistered(new ApiError(409, 'already_exists', 'Dieses Konto gibt es schon.'))).toBe(true);
  });
  it('keeps the spec rule for a message with registered, exists or already', () => {
    expect(isAlreadyRegistered(new ApiError(409, 'conflict', 'User already registered'))).toBe(true);
    expect(isAlreadyRegistered(new ApiError(422, 'weak_password', 'Password must be at least 10 characters.'))).toBe(
      false,
    );
    expect(isAlreadyRegistered(new Error('already exists'))).toBe(false);
  });
});

describe('auth callback failures (spec §8)', () => {
  it('an expired link and a used one, each by its code', () => {
    expect(callbackFailureText(new ApiError(410, 'link_expired', 'anything'))).toBe(callbackTexts.expired);
    expect(callbackFailureText(new ApiError(410, 'link_used', 'anything'))).toBe(
      'This verification link has already been used. Sign in, or request a new link.',
    );
  });
  it('any other refusal is the session error; anything that is no API answer is unexpected', () => {
    expect(callbackFailureText(new ApiError(404, 'not_found', 'expired, says the message'))).toBe(
      callbackTexts.sessionError,
    );
    expect(callbackFailureText(new TypeError('boom'))).toBe(callbackTexts.unexpected);
  });
});
