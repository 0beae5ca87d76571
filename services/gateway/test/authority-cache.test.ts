import { describe, expect, it } from 'vitest';
import { AppError, type Authority } from '@qw/contracts';
import { AuthorityCache } from '../src/auth/authority-cache.ts';
import { callerOf, type AccessClaims } from '../src/auth/caller.ts';

/**
 * The gateway's reading of a person's rights (issue #20 item 2): identity's answer, at most a
 * second old, one question per person at a time, a bounded number of people; and the Caller made
 * of it with the access token's claims.
 */
const admin: Authority = {
  active: true,
  is_admin: true,
  email_verified: true,
  account_type: 'personal',
  organizations: [],
};
const customer: Authority = { ...admin, is_admin: false };

function counting(answers: Record<string, Authority>) {
  const asked: string[] = [];
  return {
    asked,
    ask: async ({ user_id: userId }: { user_id: string }) => {
      asked.push(userId);
      const answer = answers[userId];
      if (!answer) throw new AppError('unavailable', 'identity.rpc.authority: no service is answering');
      return answer;
    },
  };
}

describe('AuthorityCache', () => {
  it('asks again once an answer is a second old, not before', async () => {
    let now = 1_000_000;
    const answers = { a: admin };
    const identity = counting(answers);
    const cache = new AuthorityCache(identity.ask, { now: () => now });
    expect(await cache.get({ user_id: 'a' })).toEqual(admin);
    now += 999;
    expect(await cache.get({ user_id: 'a' })).toEqual(admin);
    expect(identity.asked).toEqual(['a']);
    answers.a = customer;
    now += 1;
    expect(await cache.get({ user_id: 'a' })).toEqual(customer);
    expect(identity.asked).toEqual(['a', 'a']);
  });

  it('asks again when told to answer fresh, and the fresh answer serves the requests after', async () => {
    const now = 1_000_000;
    const answers = { a: customer };
    const identity = counting(answers);
    const cache = new AuthorityCache(identity.ask, { now: () => now });
    expect(await cache.get({ user_id: 'a' }, 't')).toEqual(customer);
    // An invitation accepted a moment ago: the remembered answer does not know of it yet.
    const member = { ...customer, organizations: [{ id: 'org-1', role: 'member' as const }] };
    answers.a = member;
    expect(await cache.get({ user_id: 'a' }, 't')).toEqual(customer);
    expect(await cache.get({ user_id: 'a' }, 't', { fresh: true })).toEqual(member);
    expect(await cache.get({ user_id: 'a' }, 't')).toEqual(member);
    expect(identity.asked).toEqual(['a', 'a']);
  });

  it("asks again for a person's new access token, however recent the last answer", async () => {
    const unverified = { ...customer, email_verified: false };
    const answers = { a: unverified };
    const identity = counting(answers);
    const cache = new AuthorityCache(identity.ask);
    expect(await cache.get({ user_id: 'a' }, 'first-token')).toEqual(unverified);
    // The address verified, a new session: its token's first request must not read the old answer.
    answers.a = { ...customer, email_verified: true };
    expect((await cache.get({ user_id: 'a' }, 'second-token')).email_verified).toBe(true);
    expect((await cache.get({ user_id: 'a' }, 'first-token')).email_verified).toBe(false);
  });

  it('asks once for requests that arrive while the question is open', async () => {
    const identity = counting({ a: admin });
    const cache = new AuthorityCache(identity.ask);
    const answers = await Promise.all([
      cache.get({ user_id: 'a' }),
      cache.get({ user_id: 'a' }),
      cache.get({ user_id: 'a' }),
    ]);
    expect(answers).toEqual([admin, admin, admin]);
    expect(identity.asked).toEqual(['a']);
  });

  it('forgets a failed question at once', async () => {
    const answers: Record<string, Authority> = {};
    const identity = counting(answers);
    const cache = new AuthorityCache(identity.ask);
    await expect(cache.get({ user_id: 'a' })).rejects.toMatchObject({ code: 'unavailable' });
    answers.a = admin;
    expect(await cache.get({ user_id: 'a' })).toEqual(admin);
    expect(identity.asked).toEqual(['a', 'a']);
  });

  it('keeps at most `size` people, dropping the least recently asked about', async () => {
    const identity = counting({ a: admin, b: admin, c: admin });
    const cache = new AuthorityCache(identity.ask, { size: 2 });
    await cache.get({ user_id: 'a' });
    await cache.get({ user_id: 'b' });
    await cache.get({ user_id: 'a' });
    await cache.get({ user_id: 'c' });
    expect(cache.size).toBe(2);
    await cache.get({ user_id: 'a' });
    await cache.get({ user_id: 'b' });
    expect(identity.asked).toEqual(['a', 'b', 'c', 'b']);
  });
});

describe('callerOf', () => {
  const claims: AccessClaims = { sub: 'u1', acct: 'personal', role: 'admin', adm: true, ver: true };

  it('grants admin only when both the token and identity say so', () => {
    expect(callerOf(claims, admin).isAdmin).toBe(true);
    expect(callerOf(claims, customer).isAdmin).toBe(false);
    // A token made before the second factor (or before the address was added) gets no rights from identity.
    expect(callerOf({ ...claims, adm: false }, admin).isAdmin).toBe(false);
  });

  it("takes the address's verification and the account type from identity", () => {
    expect(callerOf({ ...claims, ver: false, acct: 'personal' }, { ...customer, account_type: 'business' })).toEqual({
      userId: 'u1',
      accountType: 'business',
      isAdmin: false,
      emailVerified: true,
    });
  });

  it('refuses the token of an account that is gone', () => {
    expect(() => callerOf(claims, { ...admin, active: false })).toThrow(
      expect.objectContaining({ code: 'invalid_token' }),
    );
  });
});
