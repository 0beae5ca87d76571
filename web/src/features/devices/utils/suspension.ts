import { outranks, type SuspensionLevel } from '@qw/contracts';

/**
 * Who holds a device off, in the customer's words (issue #20), and whether the one looking may
 * switch it back on: only the level that suspended it, or a higher one (operator > organization
 * owner/admin > the device's person), as provisioning decides. Tested in web/test/device-suspension.test.ts.
 */
export const suspendedByText: Record<Exclude<SuspensionLevel, 'person'>, string> = {
  organization: "Suspended by your organization's admin",
  operator: 'Suspended by Quietwire support: contact support',
};

type Suspendable = { is_active: boolean; suspended_by?: SuspensionLevel | null | undefined };

/** The row's note; none for an active device or one its person switched off (the row says "No", as before). */
export function suspensionNote(device: Suspendable): string | null {
  if (device.is_active || !device.suspended_by || device.suspended_by === 'person') return null;
  return suspendedByText[device.suspended_by];
}

/**
 * Why the viewer may not activate the device (the note, for the disabled Activate), or null.
 * `viewer`: the level they act at on this device: its person ('person'), an owner or admin of
 * its organization on someone else's device ('organization').
 */
export function activationRefusal(device: Suspendable, viewer: SuspensionLevel): string | null {
  if (device.is_active || outranks(viewer, device.suspended_by ?? null)) return null;
  return suspensionNote(device);
}
