import { hash, verify } from '@node-rs/argon2';

export const minimumPasswordLength = 10;
const maximumPasswordLength = 256;

// A short list is enough to refuse the passwords people reach for first; length does the rest.
const commonPasswords = new Set([
  '1234567890',
  '0123456789',
  '12345678910',
  'qwertyuiop',
  'password12',
  'password123',
  'password1234',
  'iloveyou12',
  'qwerty1234',
  'qwerty12345',
  '1q2w3e4r5t',
  'abcdefghij',
  'letmein123',
  'welcome123',
  'administrator',
  'passw0rd12',
  'aaaaaaaaaa',
  '1111111111',
  'zaq12wsxcde',
  'changeme123',
  'quietwire1',
]);

/** Why a password is not acceptable, in words a person can act on; null when it is fine. */
export function passwordProblem(password: string, email: string): string | null {
  if (password.length < minimumPasswordLength) return `Password must be at least ${minimumPasswordLength} characters.`;
  if (password.length > maximumPasswordLength) return `Password must be at most ${maximumPasswordLength} characters.`;
  const lowered = password.toLowerCase();
  if (commonPasswords.has(lowered) || /^(.)\1+$/.test(password))
    return 'This password is too common. Choose a less predictable one.';
  const local = email.split('@')[0]?.toLowerCase() ?? '';
  if (local.length >= 4 && lowered.includes(local)) return 'Password must not contain your email address.';
  return null;
}

// argon2id with the library's defaults (19 MiB, 2 passes), as OWASP recommends.
export function hashPassword(password: string): Promise<string> {
  return hash(password);
}

export async function verifyPassword(passwordHash: string, password: string): Promise<boolean> {
  try {
    return await verify(passwordHash, password);
  } catch {
    return false;
  }
}

/** Spent on unknown e-mails so that a failed sign-in takes as long whether or not the account exists. */
let decoyHash: Promise<string> | undefined;
export async function spendPasswordCheck(password: string): Promise<void> {
  decoyHash ??= hashPassword('decoy-password-for-timing');
  await verifyPassword(await decoyHash, password);
}
