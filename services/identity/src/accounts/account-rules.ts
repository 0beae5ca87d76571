import { AppError, isEmailAddress, normalizeEmail } from '@qw/contracts';

/** The address as stored (lower case, trimmed), or `validation_failed` on the `email` field. */
export function validateEmail(raw: string): string {
  const email = normalizeEmail(raw);
  if (!isEmailAddress(email))
    throw new AppError('validation_failed', 'Enter a valid email address.', { field: 'email' });
  return email;
}
