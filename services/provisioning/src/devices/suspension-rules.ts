import { AppError, outranks, type SuspensionLevel } from '@qw/contracts';
import type { SuspensionReason } from '../device-events/device-events.ts';

/**
 * Suspensions have levels (issue #20, ARCHITECTURE "Who may do what"): operator > organization
 * owner/admin > the device's person. A level sets or lifts only its own or a lower level's
 * suspension; the device remembers the level, so the row can say who switched it off. A device
 * switched off by its plan's end or its organization's suspension has no level (those holds end
 * with their cause, see org-device-rules.ts), and any level may take it over.
 */

/** The level a caller acts at, from what they are to the device (device-access.ts). */
export function suspensionLevelOf(access: 'own' | 'manage' | 'operate'): SuspensionLevel {
  if (access === 'operate') return 'operator';
  if (access === 'manage') return 'organization';
  return 'person';
}

/** The reason a level's suspension records (and its device.suspended event carries). */
export function suspensionReasonOf(level: SuspensionLevel): SuspensionReason {
  return { person: 'owner', organization: 'manager', operator: 'admin' }[level] as SuspensionReason;
}

/** The refusal a lower level gets, in the words of who holds the device off. */
function suspendedByHigherLevel(held: SuspensionLevel): AppError {
  return new AppError(
    'suspended_by_higher_level',
    held === 'operator'
      ? 'Quietwire support suspended this device. Contact support to have it activated again.'
      : "Your organization's admin suspended this device. Ask an owner or admin of the organization to activate it.",
  );
}

export type SuspensionState = { is_active: boolean; suspended_by: SuspensionLevel | null };

/**
 * What a request to make the device active (or not) does, at the caller's level:
 * - `activate`: it was off and comes back (the caller still checks the plan or organization);
 * - `suspend`: it was on and goes off at this level;
 * - `take-over`: it was already off, and the suspension is now this level's (nothing reaches the
 *   node; a lower level can no longer lift it, and a held-by-organization device stays off when the
 *   organization comes back);
 * - `none`: it already is as asked, at this level.
 * A lower level than the one holding it is refused, with nothing changed.
 */
export type SuspensionStep = 'activate' | 'suspend' | 'take-over' | 'none';

export function suspensionStep(state: SuspensionState, actor: SuspensionLevel, active: boolean): SuspensionStep {
  if (active && state.is_active) return 'none';
  if (!active && state.is_active) return 'suspend';
  if (state.suspended_by && !outranks(actor, state.suspended_by)) throw suspendedByHigherLevel(state.suspended_by);
  if (active) return 'activate';
  return state.suspended_by === actor ? 'none' : 'take-over';
}
