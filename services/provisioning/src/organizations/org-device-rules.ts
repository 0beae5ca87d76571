import {
  AppError,
  assigneeQuotaRefusalText,
  devicesPerAssignee,
  managesOrganization,
  organizationRoles,
  type OrganizationRole,
} from '@qw/contracts';

/**
 * The rules of an organization's devices (spec §2, §5, §6, §9; issue #12), as functions of data.
 * The service reads the counts and roles under the organization's lock and asks these.
 */

/** Spec §5/§6: owners and admins may assign a new device to any member; anyone else only to themselves. */
export function assignmentRefusal(
  caller: { userId: string; role: OrganizationRole },
  assigneeId: string,
): AppError | null {
  if (assigneeId === caller.userId || managesOrganization(caller.role)) return null;
  return new AppError('forbidden', 'Only owners and admins can add a device for someone else.', {
    field: 'assignee_id',
  });
}

export type OrgDeviceCounts = {
  /** The assignee's devices in every organization (spec §9: "at most 5 devices in organizations"). */
  assigneeDevices: number;
  organizationDevices: number;
  /** The plan's device count; null: no limit. */
  deviceCap: number | null;
};

/** Why one more device may not be added, or null. The person's quota is named first when both are reached. */
export function quotaRefusal(counts: OrgDeviceCounts, forSelf: boolean): AppError | null {
  if (counts.assigneeDevices >= devicesPerAssignee) {
    return new AppError('quota_exceeded', assigneeQuotaRefusalText(counts.assigneeDevices, forSelf), {
      limit: 'per_assignee',
      count: counts.assigneeDevices,
      max: devicesPerAssignee,
    });
  }
  if (counts.deviceCap !== null && counts.organizationDevices >= counts.deviceCap) {
    return new AppError(
      'quota_exceeded',
      `This organization has ${counts.organizationDevices} of the ${counts.deviceCap} devices its plan includes. Remove a device or move to a larger Business plan to add more.`,
      { limit: 'device_cap', devices: counts.organizationDevices, device_cap: counts.deviceCap },
    );
  }
  return null;
}

/**
 * A Suspended organization (spec §4) adds and activates no device. Why says what helps: an
 * operator's suspension is lifted only by the service operator (renewing would change nothing),
 * a plan that ended by an owner renewing it.
 */
export function suspendedOrganization(by: 'operator' | 'plan' = 'plan'): AppError {
  if (by === 'operator')
    return new AppError(
      'suspended_by_operator',
      'This organization is suspended by the Quietwire service operator. Its devices cannot be added or activated until the suspension is lifted. Contact support for details.',
    );
  return new AppError(
    'no_entitlement',
    'This organization is suspended: its Business plan is not active. Devices can be added and activated again once an owner renews the plan under Billing.',
  );
}

/** Active (identity's status) and entitled (its subscription, from billing): only then do its devices run. */
export function organizationUsable(state: { statusActive: boolean; entitled: boolean }): boolean {
  return state.statusActive && state.entitled;
}

/** Why an organization's devices were switched off for it: these come back when it is Active again. */
const organizationHolds = ['organization_suspended', 'subscription_ended'] as const;

/**
 * Whether a device comes back when its organization is Active again: only those the organization's
 * suspension (or its subscription's end) switched off. One its person, a manager or an operator
 * suspended stays off; a personal device never follows an organization.
 */
export function comesBackWithOrganization(device: {
  org_id: string | null;
  is_active: boolean;
  suspended_reason: string | null;
}): boolean {
  return (
    device.org_id !== null &&
    !device.is_active &&
    (organizationHolds as readonly string[]).includes(device.suspended_reason ?? '')
  );
}

/** Spec §2: owners and admins see all the organization's devices, members their own. */
export function seesEveryDevice(role: OrganizationRole): boolean {
  return managesOrganization(role);
}

/** The roles that see every device, for a statement that decides it from a member row's role. */
export const everyDeviceSeers: readonly OrganizationRole[] = organizationRoles.filter(seesEveryDevice);

/**
 * The quota answer: owners and admins get every member's count of organization devices (the
 * number the 'n/5' rule counts, in every organization), a member their own only.
 */
export function organizationQuota(input: {
  role: OrganizationRole;
  callerId: string;
  members: readonly string[];
  counts: ReadonlyMap<string, number>;
  devices: number;
  deviceCap: number | null;
}) {
  const people = seesEveryDevice(input.role) ? new Set([...input.members, ...input.counts.keys()]) : [input.callerId];
  return {
    per_assignee: devicesPerAssignee,
    by_assignee: Object.fromEntries([...people].map((userId) => [userId, input.counts.get(userId) ?? 0])),
    devices: input.devices,
    device_cap: input.deviceCap,
  };
}

/**
 * Identity's member and status events come through one consumer per subject, so they can arrive
 * out of order. Event ids are UUID v7 (time first): an event older than the one last applied
 * changes nothing.
 */
export function isNewerEvent(lastApplied: string | null, incoming: string): boolean {
  return lastApplied === null || incoming.toLowerCase() > lastApplied.toLowerCase();
}
