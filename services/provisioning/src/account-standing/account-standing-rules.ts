import { AppError } from '@qw/contracts';

/**
 * A person's account suspended by the Quietwire operator (issue #26) holds every device of theirs
 * off, personal and in organizations. Their devices cannot be added or switched on, by them, their
 * organization's managers or an operator's device action, until the account is lifted.
 */
export function accountSuspendedRefusal(whose: 'own' | 'other'): AppError {
  return new AppError(
    'account_suspended',
    whose === 'own'
      ? 'Your account is suspended by Quietwire support, so devices cannot be added or switched on. Contact support for details.'
      : "This person's account is suspended by Quietwire support, so their devices cannot be added or switched on.",
  );
}

/** Devices the account's suspension takes over: on, or off only because of a plan or an organization. */
export function heldByAccount(device: { is_active: boolean; suspended_by: string | null }): boolean {
  return device.is_active || device.suspended_by === null;
}

/**
 * What a device the account held becomes when the suspension is lifted: on again if its plan (or
 * organization) allows it, else held by that, as it would have been without the account's hold.
 */
export function afterAccountLifted(usable: {
  orgId: string | null;
  entitled: boolean;
  organizationSuspended: boolean;
}): { is_active: true } | { is_active: false; suspended_reason: 'subscription_ended' | 'organization_suspended' } {
  if (usable.orgId !== null && usable.organizationSuspended)
    return { is_active: false, suspended_reason: 'organization_suspended' };
  if (!usable.entitled) return { is_active: false, suspended_reason: 'subscription_ended' };
  return { is_active: true };
}
