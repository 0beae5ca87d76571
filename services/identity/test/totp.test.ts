import { generate, generateSecret } from 'otplib';
import { describe, expect, it } from 'vitest';
import {
  isUnspentStep,
  matchingTotpStep,
  newRecoveryCode,
  normalizeRecoveryCode,
  totpDigits,
  totpStepSeconds,
} from '../src/mfa/totp.ts';

const secret = generateSecret();
const now = 1_800_000_015; // inside step 60_000_000
const step = Math.floor(now / totpStepSeconds);
const codeAt = (seconds: number) => generate({ secret, epoch: seconds });

describe('TOTP window: the current step and one step either way', () => {
  it('accepts the current code and answers its step', async () => {
    await expect(matchingTotpStep(secret, await codeAt(now), now)).resolves.toBe(step);
  });

  it('accepts the step before and the step after (clock drift)', async () => {
    await expect(matchingTotpStep(secret, await codeAt(now - 30), now)).resolves.toBe(step - 1);
    await expect(matchingTotpStep(secret, await codeAt(now + 30), now)).resolves.toBe(step + 1);
  });

  it('refuses codes two steps away, and anything that is not six digits', async () => {
    await expect(matchingTotpStep(secret, await codeAt(now - 60), now)).resolves.toBeNull();
    await expect(matchingTotpStep(secret, await codeAt(now + 60), now)).resolves.toBeNull();
    await expect(matchingTotpStep(secret, '12345', now)).resolves.toBeNull();
    await expect(matchingTotpStep(secret, 'abcdef', now)).resolves.toBeNull();
    await expect(matchingTotpStep(generateSecret(), await codeAt(now), now)).resolves.toBeNull();
  });

  it('reads a code typed with spaces', async () => {
    const code = await codeAt(now);
    expect(totpDigits(`${code.slice(0, 3)} ${code.slice(3)}`)).toBe(code);
    await expect(matchingTotpStep(secret, ` ${code.slice(0, 3)} ${code.slice(3)} `, now)).resolves.toBe(step);
    expect(totpDigits('1234567')).toBeNull();
  });
});

describe('replay: a step is spent once used', () => {
  it('accepts only a step later than the last one used', () => {
    expect(isUnspentStep(step, null)).toBe(true);
    expect(isUnspentStep(step + 1, step)).toBe(true);
    expect(isUnspentStep(step, step)).toBe(false);
    // The step before, still inside the window, was overtaken by a later one: refused too.
    expect(isUnspentStep(step - 1, step)).toBe(false);
  });
});

describe('recovery codes', () => {
  it('look like xxxxx-xxxxx without look-alike characters, and differ', () => {
    const codes = Array.from({ length: 200 }, newRecoveryCode);
    for (const code of codes) expect(code).toMatch(/^[a-hjkmnp-z2-9]{5}-[a-hjkmnp-z2-9]{5}$/);
    expect(new Set(codes).size).toBe(codes.length);
  });

  it('compare ignoring case and spaces', () => {
    expect(normalizeRecoveryCode('  ABCDE-fghjk ')).toBe('abcde-fghjk');
    expect(normalizeRecoveryCode('abcde - fghjk')).toBe('abcde-fghjk');
  });
});
