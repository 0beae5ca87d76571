import { describe, expect, it } from 'vitest';
import { AppError, devicesPerAssignee, type OrganizationRole } from '@qw/contracts';
import {
  assignmentRefusal,
  comesBackWithOrganization,
  isNewerEvent,
  organizationQuota,
  organizationUsable,
  quotaRefusal,
  seesEveryDevice,
  suspendedOrganization,
} from '../src/organizations/org-device-rules.ts';

const roles: Array<OrganizationRole> = ['owner', 'admin', 'member'];

describe('who may add a device for whom (spec §5, §6)', () => {
  it.each(roles)('a %s may always add one for themselves', (role) => {
    expect(assignmentRefusal({ userId: 'ann', role }, 'ann')).toBeNull();
  });

  it('owners and admins may pick any member; a member only themselves, with a clear 403', () => {
    expect(assignmentRefusal({ userId: 'ann', role: 'owner' }, 'bob')).toBeNull();
    expect(assignmentRefusal({ userId: 'ann', role: 'admin' }, 'bob')).toBeNull();
    const refusal = assignmentRefusal({ userId: 'ann', role: 'member' }, 'bob');
    expect(refusal).toBeInstanceOf(AppError);
    expect(refusal?.code).toBe('forbidden');
    expect(refusal?.status).toBe(403);
    expect(refusal?.message).toBe('Only owners and admins can add a device for someone else.');
    expect(refusal?.details).toEqual({ field: 'assignee_id' });
  });
});

describe('the quotas (spec §9: 5 organization devices per person; the plan’s device count)', () => {
  const room = { assigneeDevices: 0, organizationDevices: 0, deviceCap: 10 };

  it('accepts the 5th device of a person and refuses the 6th, in the words for oneself or for someone else', () => {
    expect(quotaRefusal({ ...room, assigneeDevices: devicesPerAssignee - 1 }, true)).toBeNull();
    const own = quotaRefusal({ ...room, assigneeDevices: devicesPerAssignee }, true);
    expect(own?.code).toBe('quota_exceeded');
    expect(own?.status).toBe(409);
    expect(own?.message).toBe(
      'You already have 5/5 organization devices, the most one person may have. Remove one of them to add another.',
    );
    expect(own?.details).toEqual({ limit: 'per_assignee', count: 5, max: 5 });
    const theirs = quotaRefusal({ ...room, assigneeDevices: 5 }, false);
    expect(theirs?.message).toBe(
      'This person already has 5/5 organization devices, the most one person may have. Remove one of theirs to add another.',
    );
  });

  it('accepts up to the plan’s device count exactly and refuses one past it', () => {
    expect(quotaRefusal({ ...room, organizationDevices: 9 }, true)).toBeNull();
    const full = quotaRefusal({ ...room, organizationDevices: 10 }, true);
    expect(full?.code).toBe('quota_exceeded');
    expect(full?.message).toBe(
      'This organization has 10 of the 10 devices its plan includes. Remove a device or move to a larger Business plan to add more.',
    );
    expect(full?.details).toEqual({ limit: 'device_cap', devices: 10, device_cap: 10 });
    // A plan without a device count limits nothing but the per-person quota.
    expect(quotaRefusal({ ...room, organizationDevices: 10_000, deviceCap: null }, true)).toBeNull();
  });

  it('names the person’s quota first when both are reached', () => {
    const both = quotaRefusal({ assigneeDevices: 5, organizationDevices: 10, deviceCap: 10 }, true);
    expect(both?.details).toMatchObject({ limit: 'per_assignee' });
  });

  it('a suspended organization: a plain 403 no_entitlement with what to do', () => {
    const refusal = suspendedOrganization();
    expect(refusal.code).toBe('no_entitlement');
    expect(refusal.message).toBe(
      'This organization is suspended: its Business plan is not active. Devices can be added and activated again once an owner renews the plan under Billing.',
    );
  });

  it('suspended by the service operator: its own code, pointing to support and never to renewing', () => {
    const refusal = suspendedOrganization('operator');
    expect(refusal.code).toBe('suspended_by_operator');
    expect(refusal.status).toBe(403);
    expect(refusal.message).toMatch(/suspended by the Quietwire service operator/);
    expect(refusal.message).toMatch(/Contact support/);
    expect(refusal.message).not.toMatch(/renew|plan|Billing/i);
  });

  it('is usable only when Active and entitled by its subscription', () => {
    expect(organizationUsable({ statusActive: true, entitled: true })).toBe(true);
    expect(organizationUsable({ statusActive: false, entitled: true })).toBe(false);
    expect(organizationUsable({ statusActive: true, entitled: false })).toBe(false);
    expect(organizationUsable({ statusActive: false, entitled: false })).toBe(false);
  });
});

describe('which devices come back when the organization is Active again', () => {
  const device = (
    is_active: boolean,
    suspended_reason: string | null,
    org_id: string | null = 'org-1',
  ): Parameters<typeof comesBackWithOrganization>[0] => ({ org_id, is_active, suspended_reason });

  it('those the organization’s suspension or its ended subscription held, and only those', () => {
    expect(comesBackWithOrganization(device(false, 'organization_suspended'))).toBe(true);
    expect(comesBackWithOrganization(device(false, 'subscription_ended'))).toBe(true);
    // Suspended by its person, a manager or an operator: it stays off.
    expect(comesBackWithOrganization(device(false, 'owner'))).toBe(false);
    expect(comesBackWithOrganization(device(false, 'manager'))).toBe(false);
    expect(comesBackWithOrganization(device(false, 'admin'))).toBe(false);
    expect(comesBackWithOrganization(device(false, null))).toBe(false);
    // Already active: nothing to bring back.
    expect(comesBackWithOrganization(device(true, null))).toBe(false);
    // A personal device never follows an organization.
    expect(comesBackWithOrganization(device(false, 'subscription_ended', null))).toBe(false);
  });
});

describe('what an organization’s device list shows to whom (spec §2)', () => {
  it('owners and admins see every device; members their own', () => {
    expect(seesEveryDevice('owner')).toBe(true);
    expect(seesEveryDevice('admin')).toBe(true);
    expect(seesEveryDevice('member')).toBe(false);
  });

  const counts = new Map([
    ['ann', 2],
    ['bob', 5],
  ]);

  it('gives owners and admins every member’s count, zeros included', () => {
    expect(
      organizationQuota({
        role: 'admin',
        callerId: 'ann',
        members: ['ann', 'bob', 'cid'],
        counts,
        devices: 7,
        deviceCap: 10,
      }),
    ).toEqual({ per_assignee: 5, by_assignee: { ann: 2, bob: 5, cid: 0 }, devices: 7, device_cap: 10 });
  });

  it('gives a member their own count only', () => {
    expect(
      organizationQuota({
        role: 'member',
        callerId: 'cid',
        members: ['ann', 'bob', 'cid'],
        counts,
        devices: 7,
        deviceCap: 10,
      }),
    ).toEqual({ per_assignee: 5, by_assignee: { cid: 0 }, devices: 7, device_cap: 10 });
  });
});

describe('the order of identity’s events (each subject has its own consumer)', () => {
  // UUID v7: the time comes first, so a later event has a greater id.
  const earlier = '019aa000-0000-7000-8000-000000000000';
  const later = '019aa000-0001-7000-8000-000000000000';

  it('applies an event only when it is newer than the last one applied', () => {
    expect(isNewerEvent(null, earlier)).toBe(true);
    expect(isNewerEvent(earlier, later)).toBe(true);
    expect(isNewerEvent(later, earlier)).toBe(false);
    expect(isNewerEvent(later, later)).toBe(false);
    expect(isNewerEvent(later.toUpperCase(), earlier)).toBe(false);
  });
});
