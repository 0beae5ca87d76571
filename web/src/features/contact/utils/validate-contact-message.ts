export type ContactField = 'email' | 'message';
export type ContactValues = Record<ContactField, string>;
export type ContactErrors = Partial<Record<ContactField, string>>;

export const messageMinLength = 10;
export const messageMaxLength = 5000;

const emailPattern = /^[^\s@]+@[^\s@.]+(\.[^\s@.]+)+$/;

export function validateEmail(value: string): string | undefined {
  const email = value.trim();
  if (email === '') return 'Enter your email address so we can answer you.';
  if (email.length > 254 || !emailPattern.test(email)) return 'Enter a valid email address, like name@example.com.';
  return undefined;
}

export function validateMessage(value: string): string | undefined {
  const length = value.trim().length;
  if (length === 0) return 'Write your message (at least 10 characters).';
  if (length < messageMinLength) return `Your message is too short. Write at least ${messageMinLength} characters.`;
  if (length > messageMaxLength)
    return `Your message is too long. Keep it to ${messageMaxLength.toLocaleString('en-US')} characters (it has ${length.toLocaleString('en-US')}).`;
  return undefined;
}

/** The contact form's rules: a valid email, and a message of 10 to 5,000 characters after trimming. */
export function validateContactMessage(values: ContactValues): ContactErrors {
  const errors: ContactErrors = {};
  const email = validateEmail(values.email);
  const message = validateMessage(values.message);
  if (email) errors.email = email;
  if (message) errors.message = message;
  return errors;
}

export function isContactField(value: unknown): value is ContactField {
  return value === 'email' || value === 'message';
}
