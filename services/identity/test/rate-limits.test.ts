import { describe, expect, it } from 'vitest';
import {
  emailDomain,
  largeMailProviders,
  resendChecks,
  resetChecks,
  secondFactorChecks,
  secondFactorLimits,
  signInChecks,
  signInLimits,
  signUpChecks,
  signUpLimits,
} from '../src/accounts/rate-limits.ts';

const email = 'ada.lovelace@small-company.example';
const addressKey = 'hmac-of-the-address-made-by-the-gateway';

describe('keys never hold an e-mail address, a domain or anything but the gateway’s address HMAC', () => {
  it('for every policy', () => {
    const keys = [
      ...Object.values(signInChecks(email, addressKey)).map((check) => check.key),
      ...Object.values(signUpChecks(email, addressKey)).flatMap((checks) => checks.map((check) => check.key)),
      ...Object.values(resetChecks(email, addressKey)).map((check) => check.key),
      ...Object.values(resendChecks('7f1c7b1e-0000-4000-8000-000000000001', addressKey)).map((check) => check.key),
    ];
    for (const key of keys) {
      expect(key).not.toMatch(/lovelace|small-company|@/);
      expect(key.length).toBeLessThan(120);
    }
  });
});

describe('sign-in: nobody can lock the owner out', () => {
  it('counts the pair (account, address) and the address, never the account alone', () => {
    const here = signInChecks(email, addressKey);
    const elsewhere = signInChecks(email, 'another-address');
    const otherAccount = signInChecks('grace@small-company.example', addressKey);
    expect(Object.keys(here).sort()).toEqual(['address', 'pair']);
    // Failures from another address count under other keys: the owner's pair is untouched.
    expect(elsewhere.pair.key).not.toBe(here.pair.key);
    expect(elsewhere.address.key).not.toBe(here.address.key);
    // The address is shared across accounts (spraying), the pair is not.
    expect(otherAccount.address.key).toBe(here.address.key);
    expect(otherAccount.pair.key).not.toBe(here.pair.key);
    expect(signInLimits.pair.max).toBeLessThan(signInLimits.address.max);
  });
});

describe('sign-up: per address and per e-mail domain', () => {
  it('reads the domain in lower case', () => {
    expect(emailDomain('a@Small-Company.Example')).toBe('small-company.example');
    expect(signUpChecks('a@Small-Company.Example', addressKey).domain[0]!.key).toBe(
      signUpChecks('b@small-company.example', 'x').domain[0]!.key,
    );
  });

  it('gives large public mail providers more room than other domains', () => {
    expect(largeMailProviders.has('gmail.com')).toBe(true);
    const small = signUpChecks('a@small-company.example', addressKey).domain;
    const large = signUpChecks('a@gmail.com', addressKey).domain;
    expect(small.map((check) => check.limit)).toEqual(signUpLimits.domain);
    expect(large.map((check) => check.limit)).toEqual(signUpLimits.largeProviderDomain);
    expect(large[0]!.limit.max).toBeGreaterThan(small[0]!.limit.max);
  });

  it('per address, the day allows more than the hour', () => {
    const [hour, day] = signUpLimits.address;
    expect(day!.windowSeconds).toBeGreaterThan(hour!.windowSeconds);
    expect(day!.max).toBeGreaterThan(hour!.max);
  });
});

describe('second factor: counted per account across challenges, each tier waits longer', () => {
  it('grows the window with the count', () => {
    for (let i = 1; i < secondFactorLimits.length; i++) {
      expect(secondFactorLimits[i]!.max).toBeGreaterThan(secondFactorLimits[i - 1]!.max);
      expect(secondFactorLimits[i]!.windowSeconds).toBeGreaterThan(secondFactorLimits[i - 1]!.windowSeconds);
    }
    expect(secondFactorLimits[0]).toEqual({ max: 5, windowSeconds: 15 * 60 });
  });

  it('uses one key per account for every tier, so one right code clears them all', () => {
    const checks = secondFactorChecks('user-1');
    expect(new Set(checks.map((check) => check.key)).size).toBe(1);
    expect(secondFactorChecks('user-2')[0]!.key).not.toBe(checks[0]!.key);
  });
});

describe('verification resends', () => {
  it('a pause between two links, and the hour limit on the same account key', () => {
    const checks = resendChecks('user-1', addressKey);
    expect(checks.pause.limit).toEqual({ max: 1, windowSeconds: 60 });
    expect(checks.pause.key).toBe(checks.account.key);
    expect(checks.account.limit.max).toBeGreaterThan(1);
  });
});
