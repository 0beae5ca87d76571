import { describe, expect, it } from 'vitest';
import { anonymousCaller, type Caller } from '@qw/contracts';
import { reusedAssertions } from '../src/auth/assertion-cache.ts';

/** A signer that numbers its signatures, so a test sees which assertion it was given. */
function countingSigner() {
  let signed = 0;
  return {
    sign: (caller: Caller): Caller => ({ ...caller, assertion: `assertion-${++signed}` }),
    count: () => signed,
  };
}

const betty: Caller = { userId: 'u-betty', accountType: 'personal', isAdmin: false, emailVerified: true };

describe('caller assertions used again', () => {
  it('serves the same person with the same rights with one assertion until reuseMs has passed', () => {
    const signer = countingSigner();
    let now = 1_000;
    const assert = reusedAssertions(signer.sign, { reuseMs: 3_000, now: () => now });
    expect(assert(betty).assertion).toBe('assertion-1');
    now += 2_999;
    expect(assert({ ...betty }).assertion).toBe('assertion-1');
    now += 1;
    expect(assert(betty).assertion).toBe('assertion-2');
    expect(signer.count()).toBe(2);
  });

  it('signs anew at once when the rights change (admin, verified address, account type), and for another person', () => {
    const signer = countingSigner();
    const assert = reusedAssertions(signer.sign, { reuseMs: 3_000, now: () => 0 });
    const first = assert(betty);
    const admin = assert({ ...betty, isAdmin: true });
    expect(admin).toMatchObject({ isAdmin: true, assertion: 'assertion-2' });
    expect(assert({ ...betty, emailVerified: false }).assertion).toBe('assertion-3');
    expect(assert({ ...betty, accountType: 'business' }).assertion).toBe('assertion-4');
    expect(assert({ ...betty, userId: 'u-carl' }).assertion).toBe('assertion-5');
    // Back to the rights of the first: the first assertion, which says exactly those.
    expect(assert(betty)).toBe(first);
  });

  it('never holds more than max people, and leaves anonymous callers alone', () => {
    const signer = countingSigner();
    const assert = reusedAssertions(signer.sign, { reuseMs: 3_000, max: 2, now: () => 0 });
    assert({ ...betty, userId: 'a' });
    assert({ ...betty, userId: 'b' });
    assert({ ...betty, userId: 'c' });
    expect(signer.count()).toBe(3);
    // 'a' was the oldest and made room for 'c'; 'c' is still held.
    expect(assert({ ...betty, userId: 'c' }).assertion).toBe('assertion-3');
    expect(assert({ ...betty, userId: 'a' }).assertion).toBe('assertion-4');
    // Nobody signed in: the signer decides every time (the product's signs nothing for them).
    assert(anonymousCaller);
    assert(anonymousCaller);
    expect(signer.count()).toBe(6);
  });

  it('signs every time when reuse is off', () => {
    const signer = countingSigner();
    const assert = reusedAssertions(signer.sign, { reuseMs: 0 });
    assert(betty);
    assert(betty);
    expect(signer.count()).toBe(2);
  });
});
