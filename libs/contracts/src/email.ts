/** Lower-cased and trimmed: the one form e-mails are stored and compared in (spec §6). */
export function normalizeEmail(email: string): string {
  return email.trim().toLowerCase();
}

// Deliberately plain: one @, a dot in the domain, no spaces. Mail delivery is the real test.
export function isEmailAddress(email: string): boolean {
  return email.length <= 254 && /^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(email);
}
