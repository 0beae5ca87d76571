import { auditKinds } from '@qw/contracts';
import { describe, expect, it } from 'vitest';
import { assigneeChoices, assigneeDeviceCount, canAddOrgDevice } from '../src/features/devices/utils/org-device-rules';
import {
  auditDetailsText,
  auditKindLabel,
  auditKindLabels,
  auditKindOptions,
  chooseOrganization,
  currentCursor,
  firstAuditPage,
  invitationStep,
  newerPage,
  olderPage,
  orgSelectionKey,
  roleLabel,
} from '../src/features/organizations/utils/organization-rules';
import { formatDateTime } from '../src/lib/format';
import { hasPersonalPlan } from '../src/features/billing/utils/personal-plan';

const orgs = [{ id: 'a' }, { id: 'b' }, { id: 'c' }];

describe('the organization selector', () => {
  it('remembers the choice per person', () => {
    expect(orgSelectionKey('u1')).toBe('qw.business.org.u1');
    expect(orgSelectionKey('u2')).not.toBe(orgSelectionKey('u1'));
    expect(orgSelectionKey(null)).toBeNull();
    expect(orgSelectionKey('')).toBeNull();
  });
  it('takes the remembered organization, else the first, else none', () => {
    expect(chooseOrganization(orgs, 'b')).toEqual({ id: 'b' });
    expect(chooseOrganization(orgs, null)).toEqual({ id: 'a' });
    // Left, removed or another person's choice: the first one.
    expect(chooseOrganization(orgs, 'gone')).toEqual({ id: 'a' });
    expect(chooseOrganization([], 'a')).toBeNull();
  });
});

describe('what an invitation link asks of the person holding it', () => {
  const invited = 'Mia@Example.com';
  it('the invited address signed in joins (case and spaces do not matter)', () => {
    expect(invitationStep({ signedInEmail: ' mia@example.COM ', invitedEmail: invited, accountExists: true })).toBe(
      'join',
    );
    expect(invitationStep({ signedInEmail: 'mia@example.com', invitedEmail: invited, accountExists: false })).toBe(
      'join',
    );
  });
  it('someone else signed in is told so', () => {
    for (const accountExists of [true, false])
      expect(invitationStep({ signedInEmail: 'leo@example.com', invitedEmail: invited, accountExists })).toBe(
        'wrong-account',
      );
  });
  it('nobody signed in: sign in when the address has an account, else create it', () => {
    expect(invitationStep({ signedInEmail: null, invitedEmail: invited, accountExists: true })).toBe('sign-in');
    expect(invitationStep({ signedInEmail: undefined, invitedEmail: invited, accountExists: false })).toBe('sign-up');
    expect(invitationStep({ signedInEmail: '', invitedEmail: invited, accountExists: false })).toBe('sign-up');
  });
});

describe('the audit log’s words', () => {
  it('names every kind the contracts record, and lists each once in the filter', () => {
    for (const kind of auditKinds) expect(auditKindLabel(kind)).toBe(auditKindLabels[kind]);
    expect(Object.keys(auditKindLabels).sort()).toEqual([...auditKinds].sort());
    expect(auditKindOptions.map((option) => option.value)).toEqual([...auditKinds]);
    expect(new Set(Object.values(auditKindLabels)).size).toBe(auditKinds.length);
  });
  it('shows a kind it does not know as written', () => {
    expect(auditKindLabel('member.teleported')).toBe('member.teleported');
  });
  it('writes flat details as key: value and leaves nested values out', () => {
    expect(auditDetailsText({ role: 'admin', from_role: 'member', count: 2, nested: { a: 1 }, none: null })).toBe(
      'role: admin, from role: member, count: 2',
    );
    expect(auditDetailsText({})).toBe('');
  });
  it('roles read as words', () => {
    expect([roleLabel('owner'), roleLabel('admin'), roleLabel('member'), roleLabel('guest')]).toEqual([
      'Owner',
      'Admin',
      'Member',
      'guest',
    ]);
  });
});

describe('paging through the audit log', () => {
  it('goes older with the server’s cursor and back newer one step at a time', () => {
    expect(currentCursor(firstAuditPage)).toBeUndefined();
    const second = olderPage(firstAuditPage, 'c1');
    expect(currentCursor(second)).toBe('c1');
    const third = olderPage(second, 'c2');
    expect(currentCursor(third)).toBe('c2');
    // No older page: stays.
    expect(olderPage(third, null)).toBe(third);
    expect(currentCursor(newerPage(third))).toBe('c1');
    expect(currentCursor(newerPage(newerPage(third)))).toBeUndefined();
    expect(newerPage(firstAuditPage)).toBe(firstAuditPage);
  });
});

describe('business add device (spec §5)', () => {
  const ready = { name: 'Work laptop', orgId: 'org-1', pending: false, assigneeCount: 0 };
  it('is enabled with a name, an organization, nothing in flight and fewer than 5 devices', () => {
    expect(canAddOrgDevice(ready)).toBe(true);
    expect(canAddOrgDevice({ ...ready, assigneeCount: 4 })).toBe(true);
  });
  it('is disabled for each missing condition', () => {
    expect(canAddOrgDevice({ ...ready, name: '' })).toBe(false);
    expect(canAddOrgDevice({ ...ready, name: '   ' })).toBe(false);
    expect(canAddOrgDevice({ ...ready, orgId: null })).toBe(false);
    expect(canAddOrgDevice({ ...ready, orgId: '' })).toBe(false);
    expect(canAddOrgDevice({ ...ready, pending: true })).toBe(false);
    expect(canAddOrgDevice({ ...ready, assigneeCount: 5 })).toBe(false);
    expect(canAddOrgDevice({ ...ready, assigneeCount: 6 })).toBe(false);
  });
  it('follows the quota the server answers when it names one', () => {
    expect(canAddOrgDevice({ ...ready, assigneeCount: 5, perAssignee: 6 })).toBe(true);
    expect(canAddOrgDevice({ ...ready, assigneeCount: 3, perAssignee: 3 })).toBe(false);
  });
  it('counts the assignee’s devices from the quota answer', () => {
    expect(assigneeDeviceCount({ u1: 3 }, 'u1')).toBe(3);
    expect(assigneeDeviceCount({ u1: 3 }, 'u2')).toBe(0);
    expect(assigneeDeviceCount({ u1: 3 }, null)).toBe(0);
  });
  it('offers the picker to owners and admins only, with every organization user', () => {
    const users = [{ user_id: 'u1' }, { user_id: 'u2' }];
    expect(assigneeChoices(true, users)).toEqual(users);
    expect(assigneeChoices(true, undefined)).toEqual([]);
    expect(assigneeChoices(false, users)).toBeNull();
  });
});

describe('dates and plans the business area shows', () => {
  it('writes audit times as YYYY-MM-DD HH:MM UTC', () => {
    expect(formatDateTime('2026-03-04T05:06:07.890Z')).toBe('2026-03-04 05:06 UTC');
    expect(formatDateTime('2026-03-04T23:59:00+02:00')).toBe('2026-03-04 21:59 UTC');
    expect(formatDateTime(null)).toBe('—');
    expect(formatDateTime('yesterday')).toBe('—');
  });
  it('a personal plan counts for the area switch while it entitles its owner', () => {
    expect(hasPersonalPlan({ status: 'active', org_id: null })).toBe(true);
    expect(hasPersonalPlan({ status: 'past_due', org_id: null })).toBe(true);
    expect(hasPersonalPlan({ status: 'canceled', org_id: null })).toBe(false);
    expect(hasPersonalPlan({ status: 'active', org_id: 'org-1' })).toBe(false);
    expect(hasPersonalPlan(null)).toBe(false);
    expect(hasPersonalPlan(undefined)).toBe(false);
  });
});
