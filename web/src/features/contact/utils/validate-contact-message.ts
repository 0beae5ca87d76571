import {
  contactEmailProblem,
  contactMessageLength,
  contactMessageMaxLength,
  contactMessageMinLength,
  contactMessageProblem,
  type ContactEmailProblem,
  type ContactField,
} from '@qw/contracts';

/** The rules and limits are the contracts' (`libs/contracts/src/contact.ts`); the words are the form's. */
export { isContactField, type ContactField } from '@qw/contracts';
export type ContactValues = Record<ContactField, string>;
export type ContactErrors = Partial<Record<ContactField, string>>;

const count = (value: number) => value.toLocaleString('en-US');

const emailTexts: Record<ContactEmailProblem, string> = {
  missing: 'Enter your email address so we can answer you.',
  invalid: 'Enter a valid email address, like name@example.com.',
};

export function validateEmail(value: string): string | undefined {
  const problem = contactEmailProblem(value);
  return problem ? emailTexts[problem] : undefined;
}

export function validateMessage(value: string): string | undefined {
  switch (contactMessageProblem(value)) {
    case 'missing':
      return `Write your message (at least ${contactMessageMinLength} characters).`;
    case 'too_short':
      return `Your message is too short. Write at least ${contactMessageMinLength} characters.`;
    case 'too_long':
      return `Your message is too long. Keep it to ${count(contactMessageMaxLength)} characters (it has ${count(contactMessageLength(value))}).`;
    default:
      return undefined;
  }
}

/** The hint under the message box. */
export const messageLengthHint = `Between ${contactMessageMinLength} and ${count(contactMessageMaxLength)} characters.`;

/** The contact form's checks: a valid email, and a message of the allowed length after trimming. */
export function validateContactMessage(values: ContactValues): ContactErrors {
  const errors: ContactErrors = {};
  const email = validateEmail(values.email);
  const message = validateMessage(values.message);
  if (email) errors.email = email;
  if (message) errors.message = message;
  return errors;
}
