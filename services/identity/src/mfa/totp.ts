import { randomBytes } from 'node:crypto';
import { verify } from 'otplib';

/**
 * The rules of a second factor, as functions of data: which TOTP step a code belongs to, whether
 * that step may still be used, and what a recovery code looks like.
 */

/** RFC 6238 steps of 30 s; a code of the step before or after the current one is accepted too (phone clocks drift). */
export const totpStepSeconds = 30;
export const totpDriftSteps = 1;

/** Six digits, spaces ignored (apps show "123 456"). */
export function totpDigits(code: string): string | null {
  const digits = code.replace(/\s+/g, '');
  return /^\d{6}$/.test(digits) ? digits : null;
}

/** The step the code was made for, within the drift around `nowSeconds`; null when it matches none. */
export async function matchingTotpStep(
  secret: string,
  code: string,
  nowSeconds = Math.floor(Date.now() / 1000),
): Promise<number | null> {
  const digits = totpDigits(code);
  if (!digits) return null;
  const result = await verify({
    secret,
    token: digits,
    epoch: nowSeconds,
    epochTolerance: totpStepSeconds * totpDriftSteps,
  });
  return result.valid ? (result as { timeStep: number }).timeStep : null;
}

/** A step is spent once used: only a later step is accepted after it, so a seen code cannot be replayed. */
export function isUnspentStep(step: number, lastUsedStep: number | null): boolean {
  return lastUsedStep === null || step > lastUsedStep;
}

/** `xxxxx-xxxxx` from an alphabet without look-alike characters. */
export function newRecoveryCode(): string {
  const alphabet = 'abcdefghjkmnpqrstuvwxyz23456789';
  const bytes = randomBytes(10);
  const chars = [...bytes].map((b) => alphabet[b % alphabet.length]);
  return `${chars.slice(0, 5).join('')}-${chars.slice(5).join('')}`;
}

/** Recovery codes are compared as typed, ignoring case and spaces. */
export function normalizeRecoveryCode(code: string): string {
  return code.trim().toLowerCase().replace(/\s+/g, '');
}
