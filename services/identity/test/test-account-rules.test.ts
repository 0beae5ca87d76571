import { describe, expect, it } from 'vitest';
import { isReservedTestAddress } from '../src/accounts/test-account-rules.ts';

describe('reserved test domains (issue #26: test accounts by default in development)', () => {
  it.each([
    'dana@example.test',
    'DANA@Example.TEST',
    'ops@quietwire.test',
    'a@sub.example.test',
    'a@corp.example',
    'a@nowhere.invalid',
    'a@localhost',
    'a@example.com',
    'a@mail.example.org',
    'a@example.net.',
  ])('%s is a test address', (email) => {
    expect(isReservedTestAddress(email)).toBe(true);
  });

  it.each([
    'dana@gmail.com',
    'a@example.company',
    'a@notexample.com',
    'a@testing.io',
    'a@test.com',
    'a@example.com.au',
    'no-at-sign',
    'a@',
  ])('%s is not', (email) => {
    expect(isReservedTestAddress(email)).toBe(false);
  });
});
