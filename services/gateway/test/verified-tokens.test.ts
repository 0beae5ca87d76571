import { describe, expect, it } from 'vitest';
import { rememberedVerifications } from '../src/auth/verified-tokens.ts';

type Claims = { sub: string; exp?: number };

/** A verifier that counts its calls and answers what it is given (or throws it). */
function countingVerifier() {
  let calls = 0;
  return {
    verify: (answer: Claims | Error) => async () => {
      calls++;
      if (answer instanceof Error) throw answer;
      return answer;
    },
    calls: () => calls,
  };
}

describe('access tokens verified once', () => {
  it('believes a header that verified until its token expires, then verifies it again', async () => {
    let now = 1_000_000;
    const verified = rememberedVerifications<Claims>({ now: () => now });
    const verifier = countingVerifier();
    const claims = { sub: 'u-betty', exp: 1_900 };
    expect(await verified('Bearer a.b.c', verifier.verify(claims))).toBe(claims);
    now = 1_899_999;
    expect(await verified('Bearer a.b.c', verifier.verify(new Error('not asked')))).toBe(claims);
    expect(verifier.calls()).toBe(1);
    // At its exp the token is verified again, and the verifier's refusal stands.
    now = 1_900_000;
    await expect(verified('Bearer a.b.c', verifier.verify(new Error('expired')))).rejects.toThrow('expired');
    expect(verifier.calls()).toBe(2);
    await expect(verified('Bearer a.b.c', verifier.verify(new Error('expired')))).rejects.toThrow('expired');
    expect(verifier.calls()).toBe(3);
  });

  it('never remembers a refusal, and believes only the very header that verified', async () => {
    const verified = rememberedVerifications<Claims>({ now: () => 0 });
    const verifier = countingVerifier();
    await expect(verified('Bearer a.b.forged', verifier.verify(new Error('bad signature')))).rejects.toThrow();
    const claims = { sub: 'u-betty', exp: 60 };
    expect(await verified('Bearer a.b.forged', verifier.verify(claims))).toBe(claims);
    expect(verifier.calls()).toBe(2);
    // The same token with another signature, or another header around it, is another question.
    await expect(verified('Bearer a.b.forgee', verifier.verify(new Error('bad signature')))).rejects.toThrow();
    await expect(verified('bearer a.b.forged', verifier.verify(new Error('bad scheme')))).rejects.toThrow();
    expect(verifier.calls()).toBe(4);
  });

  it('verifies a token without an expiry every time', async () => {
    const verified = rememberedVerifications<Claims>({ now: () => 0 });
    const verifier = countingVerifier();
    await verified('Bearer x', verifier.verify({ sub: 'u-betty' }));
    await verified('Bearer x', verifier.verify({ sub: 'u-betty' }));
    expect(verifier.calls()).toBe(2);
  });

  it('keeps at most `max` tokens, dropping the oldest', async () => {
    const verified = rememberedVerifications<Claims>({ max: 2, now: () => 0 });
    const verifier = countingVerifier();
    for (const token of ['one', 'two', 'three']) await verified(token, verifier.verify({ sub: token, exp: 60 }));
    expect(verifier.calls()).toBe(3);
    await verified('three', verifier.verify(new Error('not asked')));
    await verified('two', verifier.verify(new Error('not asked')));
    expect(verifier.calls()).toBe(3);
    await verified('one', verifier.verify({ sub: 'one', exp: 60 }));
    expect(verifier.calls()).toBe(4);
  });
});
