import { describe, expect, it } from 'vitest';
import { minimumPasswordLength, passwordProblem } from '../src/accounts/passwords.ts';

describe('passwordProblem: the one policy of sign-up, reset and the step after a first verification', () => {
  it('accepts ten characters or more that are not predictable', () => {
    expect(minimumPasswordLength).toBe(10);
    expect(passwordProblem('correct horse battery', 'ada@example.com')).toBeNull();
    expect(passwordProblem(`${'x'.repeat(9)}y`, 'ada@example.com')).toBeNull();
    expect(passwordProblem('a'.repeat(256).replace(/a$/, 'b'), 'ada@example.com')).toBeNull();
  });

  it.each([
    ['short', 'Password must be at least 10 characters.'],
    ['123456789', 'Password must be at least 10 characters.'],
    ['a'.repeat(257), 'Password must be at most 256 characters.'],
    ['password123', 'This password is too common. Choose a less predictable one.'],
    ['QWERTYUIOP', 'This password is too common. Choose a less predictable one.'],
    ['zzzzzzzzzzzz', 'This password is too common. Choose a less predictable one.'],
    ['my-lovelace-password', 'Password must not contain your email address.'],
  ])('refuses %j', (password, problem) => {
    expect(passwordProblem(password, 'lovelace@example.com')).toBe(problem);
  });

  it('a short local part is not looked for (too many false refusals)', () => {
    expect(passwordProblem('bob is my uncle', 'bob@example.com')).toBeNull();
  });
});
