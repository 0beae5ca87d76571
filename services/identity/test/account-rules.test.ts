import { describe, expect, it } from 'vitest';
import { linkState } from '../src/email-links/email-link-rules.ts';
import { changedProfileFields, profileFields, toProfile } from '../src/profiles/profile-rules.ts';
import { validateEmail } from '../src/accounts/account-rules.ts';

describe('linkState: what an e-mail link (verification, password step, reset) can still do', () => {
  const now = Date.parse('2026-03-01T12:00:00Z');
  it('usable until it expires, unless used', () => {
    expect(linkState({ used_at: null, expires_at: '2026-03-01T12:00:01Z' }, now)).toBe('usable');
    expect(linkState({ used_at: null, expires_at: new Date(now + 1) }, now)).toBe('usable');
  });
  it('expired at its expiry time exactly and after', () => {
    expect(linkState({ used_at: null, expires_at: new Date(now) }, now)).toBe('expired');
    expect(linkState({ used_at: null, expires_at: '2026-02-28T00:00:00Z' }, now)).toBe('expired');
  });
  it('a used link says so even once expired (its refusal names the use, not the time)', () => {
    expect(linkState({ used_at: new Date(now - 5), expires_at: new Date(now + 60_000) }, now)).toBe('used');
    expect(linkState({ used_at: '2026-02-01T00:00:00Z', expires_at: '2026-02-02T00:00:00Z' }, now)).toBe('used');
  });
});

describe('profileFields: what a profile update may set', () => {
  it('trims, and an empty value clears the field', () => {
    expect(profileFields({ full_name: '  Ada Lovelace ' })).toEqual({ full_name: 'Ada Lovelace' });
    expect(profileFields({ full_name: '   ', avatar_url: '' })).toEqual({ full_name: null, avatar_url: null });
    expect(profileFields({ full_name: null, avatar_url: null })).toEqual({ full_name: null, avatar_url: null });
    expect(profileFields({})).toEqual({});
  });
  it('a name of at most 100 characters', () => {
    expect(profileFields({ full_name: 'a'.repeat(100) })).toEqual({ full_name: 'a'.repeat(100) });
    expect(() => profileFields({ full_name: 'a'.repeat(101) })).toThrow(
      expect.objectContaining({
        code: 'validation_failed',
        message: 'Full name can be at most 100 characters.',
        details: { field: 'full_name' },
      }),
    );
  });
  it('an avatar only at an https:// address of at most 2,048 characters', () => {
    expect(profileFields({ avatar_url: ' https://img.example/a.png ' })).toEqual({
      avatar_url: 'https://img.example/a.png',
    });
    for (const url of ['http://img.example/a.png', 'javascript:alert(1)', 'https://', 'not a url'])
      expect(() => profileFields({ avatar_url: url })).toThrow(
        expect.objectContaining({ code: 'validation_failed', message: 'Avatar URL must be an https:// address.' }),
      );
    expect(() => profileFields({ avatar_url: `https://img.example/${'a'.repeat(2030)}` })).toThrow(
      expect.objectContaining({ message: 'Avatar URL can be at most 2,048 characters.' }),
    );
  });
});

describe('changedProfileFields and toProfile', () => {
  const row = {
    id: 'u1',
    email: 'ada@example.com',
    full_name: 'Ada',
    avatar_url: null,
    account_type: 'personal',
    role: null,
  };
  it('only the fields whose value differs', () => {
    expect(changedProfileFields(row, { full_name: 'Ada', avatar_url: null })).toEqual([]);
    expect(changedProfileFields(row, { full_name: null })).toEqual(['full_name']);
    expect(changedProfileFields(row, { avatar_url: 'https://a.example/x' })).toEqual(['avatar_url']);
  });
  it('a profile without a role is a client', () => {
    expect(toProfile(row as never)).toEqual({ ...row, role: 'client' });
    expect(toProfile({ ...row, role: 'support' } as never).role).toBe('support');
  });
});

describe('validateEmail', () => {
  it('normalizes and refuses what is not an address', () => {
    expect(validateEmail('  Ada@Example.COM ')).toBe('ada@example.com');
    expect(() => validateEmail('ada')).toThrow(
      expect.objectContaining({ code: 'validation_failed', message: 'Enter a valid email address.' }),
    );
  });
});
