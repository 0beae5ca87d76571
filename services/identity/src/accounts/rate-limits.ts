import type { RateLimit } from '@qw/platform/limits';
import { hashSecretToken } from './secret-tokens.ts';

/**
 * Identity's rate-limit policies: what is counted, under which key, and how many are allowed (the
 * mechanism is the platform's, libs/platform/src/limits). Keys never hold an e-mail address or a
 * client address in clear: addresses arrive as the gateway's HMAC (`address_key`), e-mails and
 * domains are hashed here.
 */

type Check = { key: string; limit: RateLimit };
const minutes = (n: number) => n * 60;
const hours = (n: number) => n * 3600;

/**
 * Failed sign-ins. Counted for the pair (account, address) and per address, never for the account
 * alone: a lock on the account would let anyone lock its owner out by failing on purpose.
 */
export const signInLimits = {
  pair: { max: 5, windowSeconds: minutes(15) },
  address: { max: 20, windowSeconds: minutes(15) },
} satisfies Record<string, RateLimit>;

export function signInChecks(email: string, addressKey: string) {
  return {
    pair: { key: `signin:pair:${hashSecretToken(`${email}\n${addressKey}`)}`, limit: signInLimits.pair },
    address: { key: `signin:address:${addressKey}`, limit: signInLimits.address },
  } satisfies Record<string, Check>;
}

/**
 * Sign-ups, each of which mails a link: per address, and per e-mail domain so that no one mailbox
 * server is flooded from many addresses. Large public mail providers, where many real people sign
 * up, get more room.
 */
export const signUpLimits = {
  address: [
    { max: 20, windowSeconds: hours(1) },
    { max: 50, windowSeconds: hours(24) },
  ],
  domain: [{ max: 50, windowSeconds: hours(1) }],
  largeProviderDomain: [{ max: 1000, windowSeconds: hours(1) }],
} satisfies Record<string, RateLimit[]>;

export const largeMailProviders: ReadonlySet<string> = new Set([
  'gmail.com',
  'googlemail.com',
  'outlook.com',
  'hotmail.com',
  'live.com',
  'msn.com',
  'yahoo.com',
  'icloud.com',
  'me.com',
  'aol.com',
  'proton.me',
  'protonmail.com',
  'gmx.de',
  'gmx.net',
  'web.de',
  'mail.ru',
  'yandex.ru',
  'qq.com',
  '163.com',
]);

export function emailDomain(email: string): string {
  return email.slice(email.lastIndexOf('@') + 1).toLowerCase();
}

export function signUpChecks(email: string, addressKey: string): { address: Check[]; domain: Check[] } {
  const domain = emailDomain(email);
  const domainLimits = largeMailProviders.has(domain) ? signUpLimits.largeProviderDomain : signUpLimits.domain;
  return {
    address: signUpLimits.address.map((limit) => ({ key: `signup:address:${addressKey}`, limit })),
    domain: domainLimits.map((limit) => ({ key: `signup:domain:${hashSecretToken(domain)}`, limit })),
  };
}

/** New verification links for a signed-in person: a pause between two, a few an hour, per account and address. */
export const resendLimits = {
  pause: { max: 1, windowSeconds: 60 },
  account: { max: 5, windowSeconds: hours(1) },
  address: { max: 20, windowSeconds: hours(1) },
} satisfies Record<string, RateLimit>;

export function resendChecks(userId: string, addressKey: string) {
  return {
    pause: { key: `verify:account:${userId}`, limit: resendLimits.pause },
    account: { key: `verify:account:${userId}`, limit: resendLimits.account },
    address: { key: `verify:address:${addressKey}`, limit: resendLimits.address },
  } satisfies Record<string, Check>;
}

/**
 * Password reset requests per address (refused with 429), and reset mails per account: past that,
 * requests are answered the same but send nothing, so nobody can flood a mailbox from many
 * addresses, and the owner is never refused (the last link sent still works).
 */
export const resetLimits = {
  address: { max: 5, windowSeconds: hours(1) },
  accountMail: { max: 5, windowSeconds: hours(1) },
} satisfies Record<string, RateLimit>;

export function resetChecks(email: string, addressKey: string) {
  return {
    address: { key: `reset:address:${addressKey}`, limit: resetLimits.address },
    accountMail: { key: `reset:account:${hashSecretToken(email)}`, limit: resetLimits.accountMail },
  } satisfies Record<string, Check>;
}

export const contactLimit: RateLimit = { max: 5, windowSeconds: hours(1) };

/**
 * Wrong second-factor codes per account, counted across challenges (a correct password opens a new
 * challenge each time, so its own five tries are no limit). Each tier waits longer: after five
 * within 15 minutes up to 15 minutes, ten within the hour up to an hour, twenty within the day up
 * to a day. A right code clears the count. Only someone who knows the password can add to it.
 */
export const secondFactorLimits: readonly RateLimit[] = [
  { max: 5, windowSeconds: minutes(15) },
  { max: 10, windowSeconds: hours(1) },
  { max: 20, windowSeconds: hours(24) },
];

export function secondFactorKey(userId: string): string {
  return `mfa:failures:${userId}`;
}

export function secondFactorChecks(userId: string): Check[] {
  return secondFactorLimits.map((limit) => ({ key: secondFactorKey(userId), limit }));
}
