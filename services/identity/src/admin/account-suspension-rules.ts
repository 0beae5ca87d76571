import { AppError } from '@qw/contracts';

/**
 * An operator's suspension of a person's account (issue #26): the reason is what the person reads
 * on their dashboard, so it must say something; an account is suspended once, lifted once; an
 * operator does not suspend their own account (nobody would be left to lift it from there).
 */
export type AccountSuspension = { reason: string; since: string };

export function accountSuspensionOf(user: {
  suspended_at: Date | string | null;
  suspension_reason: string | null;
}): AccountSuspension | null {
  if (!user.suspended_at) return null;
  return { reason: user.suspension_reason ?? '', since: new Date(user.suspended_at).toISOString() };
}

/** What the suspension request asks, checked before anything changes. */
export function suspensionChange(input: {
  operatorId: string;
  userId: string;
  suspended: boolean;
  reason: string | undefined;
  current: AccountSuspension | null;
}): { reason: string | null } {
  if (input.suspended) {
    const reason = (input.reason ?? '').trim();
    if (reason === '') throw new AppError('validation_failed', 'Say why the account is suspended: its owner reads it.');
    if (input.operatorId === input.userId)
      throw new AppError('conflict', 'You cannot suspend your own account. Ask another operator.');
    if (input.current) throw new AppError('conflict', 'This account is already suspended.');
    return { reason };
  }
  if (!input.current) throw new AppError('conflict', 'This account is not suspended.');
  return { reason: null };
}
