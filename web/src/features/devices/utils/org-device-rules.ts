import { devicesPerAssignee } from '@qw/contracts';

/**
 * Spec §5 business add device, as functions of data (tested in web/test/org-device-rules.test.ts).
 */

/** Organization devices the person has now: the quota answer's count, 0 when it names nobody. */
export function assigneeDeviceCount(byAssignee: Readonly<Record<string, number>>, assigneeId: string | null): number {
  if (!assigneeId) return 0;
  return byAssignee[assigneeId] ?? 0;
}

/**
 * The Add button is enabled only if the name is non-empty (after trimming), an organization is
 * chosen, no request is in flight, and the assignee has fewer than 5 organization devices.
 */
export function canAddOrgDevice(input: {
  name: string;
  orgId: string | null | undefined;
  pending: boolean;
  assigneeCount: number;
  perAssignee?: number;
}): boolean {
  const limit = input.perAssignee ?? devicesPerAssignee;
  return input.name.trim().length > 0 && !!input.orgId && !input.pending && input.assigneeCount < limit;
}

/**
 * Spec §6: owners and admins pick any organization user (themselves among them) as assignee;
 * anyone else assigns to themselves with no picker (null).
 */
export function assigneeChoices<U extends { user_id: string }>(
  manages: boolean,
  users: readonly U[] | undefined,
): readonly U[] | null {
  return manages ? (users ?? []) : null;
}
