import { isEmailAddress, normalizeEmail } from './email.ts';

/**
 * The contact form's rules (spec §2 /contact; the spec shows no validation, these are ours), one
 * home for the web form, the gateway route and identity, which stores and forwards the message.
 */

/** The longest address SMTP carries (RFC 5321), as `isEmailAddress` allows. */
export const contactEmailMaxLength = 254;
/** The message, after trimming, is 10 to 5,000 characters. */
export const contactMessageMinLength = 10;
export const contactMessageMaxLength = 5000;
/**
 * What the gateway accepts before trimming: room for white space around a full message, so an
 * over-long message is refused by the rule above with its own words, not by the body schema.
 */
export const contactMessageBodyMaxLength = 10_000;

/** The fields a refusal names in `details.field`. */
export const contactFields = ['email', 'message'] as const;
export type ContactField = (typeof contactFields)[number];

export function isContactField(value: unknown): value is ContactField {
  return typeof value === 'string' && (contactFields as readonly string[]).includes(value);
}

/** Why an address is refused: empty, or not an address. Each side says it in its own words. */
export type ContactEmailProblem = 'missing' | 'invalid';
export type ContactMessageProblem = 'missing' | 'too_short' | 'too_long';

export function contactEmailProblem(raw: string): ContactEmailProblem | null {
  const email = normalizeEmail(raw);
  if (email === '') return 'missing';
  return isEmailAddress(email) ? null : 'invalid';
}

/** The message's length as the rules count it: after trimming. */
export function contactMessageLength(raw: string): number {
  return raw.trim().length;
}

export function contactMessageProblem(raw: string): ContactMessageProblem | null {
  const length = contactMessageLength(raw);
  if (length === 0) return 'missing';
  if (length < contactMessageMinLength) return 'too_short';
  if (length > contactMessageMaxLength) return 'too_long';
  return null;
}
