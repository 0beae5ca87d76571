import { describe, expect, it } from 'vitest';
import { AppError, type OrganizationRole } from '@qw/contracts';
import {
  answeredBeforeAnyEvent,
  entitlementCorrection,
  mayBeBehindOwner,
  memberCorrection,
  organizationCorrection,
} from '../src/organizations/owner-answer-rules.ts';
import { isNewerEvent, quotaRefusal, suspendedOrganization } from '../src/organizations/org-device-rules.ts';

const roles: OrganizationRole[] = ['owner', 'admin', 'member'];

describe('which refusals send provisioning to the owners (read-your-writes)', () => {
  it('those a copy behind identity or billing can cause', () => {
    for (const refusal of [
      new AppError('not_found', 'Organization not found.'),
      new AppError('forbidden', 'Only owners and admins can add a device for someone else.'),
      new AppError('validation_failed', 'The assignee must be a member of this organization.'),
      suspendedOrganization(),
      suspendedOrganization('operator'),
      quotaRefusal({ assigneeDevices: 0, organizationDevices: 10, deviceCap: 10 }, true),
    ])
      expect(mayBeBehindOwner(refusal), refusal?.message).toBe(true);
  });

  it('not the per-person count, a rate limit, or anything that is no refusal', () => {
    const perAssignee = quotaRefusal({ assigneeDevices: 5, organizationDevices: 5, deviceCap: 10 }, true);
    expect(perAssignee?.details).toMatchObject({ limit: 'per_assignee' });
    expect(mayBeBehindOwner(perAssignee)).toBe(false);
    expect(mayBeBehindOwner(new AppError('rate_limited', 'Try again in 5 minutes.'))).toBe(false);
    expect(mayBeBehindOwner(new AppError('unavailable', 'No VPN server is available right now.'))).toBe(false);
    expect(mayBeBehindOwner(new Error('connection reset'))).toBe(false);
    expect(mayBeBehindOwner(undefined)).toBe(false);
  });
});

describe("what identity's answer about a person corrects", () => {
  it.each(roles)('a %s the copy does not know, or counts as gone, is kept as a member', (role) => {
    expect(memberCorrection(undefined, { role })).toEqual({ role, is_member: true });
    expect(memberCorrection({ role: 'member', is_member: false }, { role })).toEqual({ role, is_member: true });
  });

  it('a new role is kept; the same role changes nothing', () => {
    expect(memberCorrection({ role: 'member', is_member: true }, { role: 'admin' })).toEqual({
      role: 'admin',
      is_member: true,
    });
    for (const role of roles) expect(memberCorrection({ role, is_member: true }, { role })).toBeNull();
  });

  it('not a member: a member of the copy is counted gone (keeping the role); nobody else changes', () => {
    expect(memberCorrection({ role: 'admin', is_member: true }, { role: null })).toEqual({
      role: 'admin',
      is_member: false,
    });
    expect(memberCorrection({ role: 'admin', is_member: false }, { role: null })).toBeNull();
    expect(memberCorrection(undefined, { role: null })).toBeNull();
  });
});

describe("what identity's answer about the organization corrects", () => {
  const active = { is_active: true, plan: 'business10', suspended_by_operator: false };

  it('an organization identity does not know (no plan) corrects nothing', () => {
    expect(organizationCorrection(undefined, { org_active: false, plan: null })).toBeNull();
    expect(organizationCorrection(active, { org_active: false, plan: null })).toBeNull();
  });

  it('one the copy does not know is kept as identity says', () => {
    expect(organizationCorrection(undefined, { org_active: true, plan: 'business10' })).toEqual(active);
    expect(organizationCorrection(undefined, { org_active: false, plan: 'business10' })).toEqual({
      ...active,
      is_active: false,
    });
  });

  it('Active again or on another plan is kept; the same standing changes nothing', () => {
    const suspended = { is_active: false, plan: 'business10', suspended_by_operator: false };
    expect(organizationCorrection(suspended, { org_active: true, plan: 'business10' })).toEqual(active);
    expect(organizationCorrection(active, { org_active: true, plan: 'business50' })).toEqual({
      ...active,
      plan: 'business50',
    });
    expect(organizationCorrection(active, { org_active: true, plan: 'business10' })).toBeNull();
  });

  it("an operator's hold is kept while it stays Suspended, and ends when it is Active", () => {
    const held = { is_active: false, plan: 'business10', suspended_by_operator: true };
    expect(organizationCorrection(held, { org_active: false, plan: 'business50' })).toEqual({
      ...held,
      plan: 'business50',
    });
    expect(organizationCorrection(held, { org_active: true, plan: 'business10' })).toEqual(active);
  });
});

describe("what billing's answer about a plan corrects", () => {
  const answer = { subscription_id: 's1', plan_code: 'business50', status: 'active' };

  it('nothing when billing knows no entitling plan', () => {
    expect(entitlementCorrection(undefined, null)).toBeNull();
    expect(entitlementCorrection({ plan_code: 'business10', status: 'active' }, null)).toBeNull();
  });

  it('a subscription the copy does not know, or knows on another plan or status, is kept', () => {
    expect(entitlementCorrection(undefined, answer)).toEqual(answer);
    expect(entitlementCorrection({ plan_code: 'business10', status: 'active' }, answer)).toEqual(answer);
    expect(entitlementCorrection({ plan_code: 'business50', status: 'canceled' }, answer)).toEqual(answer);
    expect(entitlementCorrection({ plan_code: 'business50', status: 'active' }, answer)).toBeNull();
  });
});

it("a row kept from an owner's answer gives way to the next event about it", () => {
  const eventId = '019a5b3c-0000-7000-8000-000000000000';
  expect(isNewerEvent(answeredBeforeAnyEvent, eventId)).toBe(true);
  expect(isNewerEvent(eventId, answeredBeforeAnyEvent)).toBe(false);
});
