import { describe, expect, it } from 'vitest';
import {
  contactEmailMaxLength,
  contactEmailProblem,
  contactMessageBodyMaxLength,
  contactMessageLength,
  contactMessageMaxLength,
  contactMessageMinLength,
  contactMessageProblem,
  isContactField,
} from '../src/index.ts';

describe('contact limits', () => {
  it('are the numbers the form and the services state', () => {
    expect(contactEmailMaxLength).toBe(254);
    expect(contactMessageMinLength).toBe(10);
    expect(contactMessageMaxLength).toBe(5000);
    expect(contactMessageBodyMaxLength).toBeGreaterThanOrEqual(contactMessageMaxLength);
  });
});

describe('contactEmailProblem', () => {
  const domain = '@example.com';
  it.each([
    ['', 'missing'],
    ['   ', 'missing'],
    ['\t\n', 'missing'],
    ['visitor@example.com', null],
    ['  Visitor@Example.COM  ', null],
    ['a.b+tag@mail.example.co.uk', null],
    ['not-an-email', 'invalid'],
    ['visitor@', 'invalid'],
    ['@example.com', 'invalid'],
    ['visitor@example', 'invalid'],
    ['two words@example.com', 'invalid'],
    ['visitor@@example.com', 'invalid'],
    [`${'a'.repeat(contactEmailMaxLength - domain.length)}${domain}`, null],
    [`${'a'.repeat(contactEmailMaxLength - domain.length + 1)}${domain}`, 'invalid'],
  ])('%j → %s', (raw, expected) => {
    expect(contactEmailProblem(raw)).toBe(expected);
  });
});

describe('contactMessageProblem (length after trimming)', () => {
  it.each([
    ['', 'missing'],
    ['    \n\t ', 'missing'],
    ['x', 'too_short'],
    ['x'.repeat(contactMessageMinLength - 1), 'too_short'],
    [`   ${'x'.repeat(contactMessageMinLength - 1)}   `, 'too_short'],
    ['x'.repeat(contactMessageMinLength), null],
    ['x'.repeat(contactMessageMaxLength), null],
    [`\n${'x'.repeat(contactMessageMaxLength)}\n   `, null],
    ['x'.repeat(contactMessageMaxLength + 1), 'too_long'],
  ])('%#: %s chars → %s', (raw, expected) => {
    expect(contactMessageProblem(raw)).toBe(expected);
  });

  it('counts characters after trimming', () => {
    expect(contactMessageLength('  hello  ')).toBe(5);
    expect(contactMessageLength('')).toBe(0);
  });
});

describe('isContactField', () => {
  it('knows the two fields a refusal may name', () => {
    expect(isContactField('email')).toBe(true);
    expect(isContactField('message')).toBe(true);
    for (const other of ['name', '', null, undefined, 1, {}]) expect(isContactField(other)).toBe(false);
  });
});
