import { describe, expect, it } from 'vitest';
import {
  normalizeOrganizationName,
  organizationNameProblem,
  organizationRoles,
  type OrganizationRole,
} from '@qw/contracts';
import {
  acceptRefusal,
  capRefusal,
  decodeAuditCursor,
  deviceNameAt,
  encodeAuditCursor,
  invitationLimit,
  invitationRefusal,
  invitationState,
  inviterRefusal,
  leaveRefusal,
  managerRefusal,
  memberRefusal,
  organizationStanding,
  removalRefusal,
  roleChangeRefusal,
  shownActor,
} from '../src/organizations/organization-rules.ts';

type Role = OrganizationRole | null;
const actors: Role[] = [null, ...organizationRoles];

describe('who sees an organization at all', () => {
  it('a person who is not a member gets the same 404 as an unknown organization', () => {
    expect(memberRefusal(null)).toMatchObject({ code: 'not_found', message: 'Organization not found.' });
    for (const role of organizationRoles) expect(memberRefusal(role)).toBeNull();
  });

  it('owners and admins manage; a member is refused with 403; a stranger sees nothing', () => {
    expect(managerRefusal(null, "see the organization's users")).toMatchObject({ code: 'not_found' });
    expect(managerRefusal('member', "see the organization's users")).toMatchObject({
      code: 'forbidden',
      message: "Only owners and admins can see the organization's users.",
    });
    expect(managerRefusal('admin', "see the organization's users")).toBeNull();
    expect(managerRefusal('owner', "see the organization's users")).toBeNull();
  });
});

describe('role changes: owners and admins; only an owner makes or unmakes owners; the last owner stays', () => {
  const cases: Array<[Role, OrganizationRole, OrganizationRole, number, string | null]> = [];
  for (const actor of actors)
    for (const target of organizationRoles)
      for (const next of organizationRoles)
        for (const owners of [1, 2]) {
          let expected: string | null = null;
          if (actor === null) expected = 'not_found';
          else if (actor === 'member') expected = 'forbidden';
          else if ((target === 'owner' || next === 'owner') && target !== next && actor !== 'owner')
            expected = 'forbidden';
          else if (target === 'owner' && next !== 'owner' && owners === 1) expected = 'conflict';
          cases.push([actor, target, next, owners, expected]);
        }

  it.each(cases)('%s changes %s to %s with %i owner(s): %s', (actorRole, targetRole, newRole, owners, expected) => {
    const refusal = roleChangeRefusal({ actorRole, targetRole, newRole, owners });
    expect(refusal?.code ?? null).toBe(expected);
  });

  it('says why in words a person can act on', () => {
    expect(roleChangeRefusal({ actorRole: 'admin', targetRole: 'member', newRole: 'owner', owners: 1 })?.message).toBe(
      'Only an owner can make or unmake owners.',
    );
    expect(roleChangeRefusal({ actorRole: 'owner', targetRole: 'owner', newRole: 'admin', owners: 1 })?.message).toBe(
      'The last owner cannot be demoted. Make someone else an owner first.',
    );
    expect(roleChangeRefusal({ actorRole: 'member', targetRole: 'member', newRole: 'admin', owners: 1 })?.message).toBe(
      'Only owners and admins can change roles.',
    );
  });
});

describe('removal and leaving', () => {
  const removals: Array<[Role, OrganizationRole, number, string | null]> = [];
  for (const actor of actors)
    for (const target of organizationRoles)
      for (const owners of [1, 2]) {
        let expected: string | null = null;
        if (actor === null) expected = 'not_found';
        else if (actor === 'member') expected = 'forbidden';
        else if (target === 'owner' && actor !== 'owner') expected = 'forbidden';
        else if (target === 'owner' && owners === 1) expected = 'conflict';
        removals.push([actor, target, owners, expected]);
      }

  it.each(removals)('%s removes a %s with %i owner(s): %s', (actorRole, targetRole, owners, expected) => {
    expect(removalRefusal({ actorRole, targetRole, owners })?.code ?? null).toBe(expected);
  });

  it('the last owner can neither be removed nor leave (409 with a clear message); anyone else can leave', () => {
    expect(removalRefusal({ actorRole: 'owner', targetRole: 'owner', owners: 1 })).toMatchObject({
      code: 'conflict',
      message: 'The last owner cannot be removed. Make someone else an owner first.',
    });
    expect(leaveRefusal({ role: 'owner', owners: 1 })).toMatchObject({
      code: 'conflict',
      message: 'You are the last owner. Make someone else an owner before you leave.',
    });
    expect(leaveRefusal({ role: 'owner', owners: 2 })).toBeNull();
    expect(leaveRefusal({ role: 'admin', owners: 1 })).toBeNull();
    expect(leaveRefusal({ role: 'member', owners: 1 })).toBeNull();
    expect(leaveRefusal({ role: null, owners: 1 })).toMatchObject({ code: 'not_found' });
  });
});

describe('the user cap counts members and open invitations, on invite and on accept', () => {
  it('invite: allowed while members + open invitations stay within the cap, refused one past it', () => {
    expect(capRefusal('business10', { members: 9, openInvitations: 0 }, 'invite')).toBeNull();
    expect(capRefusal('business10', { members: 5, openInvitations: 4 }, 'invite')).toBeNull();
    expect(capRefusal('business10', { members: 5, openInvitations: 5 }, 'invite')).toMatchObject({
      code: 'quota_exceeded',
      message:
        'Business 10 allows 10 users, counting open invitations. Revoke an invitation, remove a member or choose a bigger plan.',
    });
    expect(capRefusal('business10', { members: 10, openInvitations: 0 }, 'invite')?.code).toBe('quota_exceeded');
    expect(capRefusal('business50', { members: 49, openInvitations: 0 }, 'invite')).toBeNull();
    expect(capRefusal('business50', { members: 49, openInvitations: 1 }, 'invite')?.code).toBe('quota_exceeded');
    expect(capRefusal('business250', { members: 200, openInvitations: 49 }, 'invite')).toBeNull();
  });

  it('accept: the invitation being accepted is one of the open ones, so it fits exactly at the cap', () => {
    expect(capRefusal('business10', { members: 9, openInvitations: 1 }, 'accept')).toBeNull();
    expect(capRefusal('business10', { members: 10, openInvitations: 1 }, 'accept')).toMatchObject({
      code: 'quota_exceeded',
      message: 'This organization is full: Business 10 allows 10 users. Ask an owner or admin to make room.',
    });
    expect(capRefusal('business10', { members: 8, openInvitations: 3 }, 'accept')?.code).toBe('quota_exceeded');
  });

  it('a plan without a cap never refuses', () => {
    expect(capRefusal('personal', { members: 1000, openInvitations: 1000 }, 'invite')).toBeNull();
    expect(capRefusal('no-such-plan', { members: 1000, openInvitations: 1000 }, 'accept')).toBeNull();
  });

  it('invitations sent per hour scale with the cap, never below 20', () => {
    expect(invitationLimit('business10')).toEqual({ max: 20, windowSeconds: 3600 });
    expect(invitationLimit('business50')).toEqual({ max: 100, windowSeconds: 3600 });
    expect(invitationLimit('business250')).toEqual({ max: 500, windowSeconds: 3600 });
    expect(invitationLimit('personal')).toEqual({ max: 20, windowSeconds: 3600 });
  });
});

describe('invitations', () => {
  const now = new Date('2026-12-01T12:00:00Z');
  const open = { accepted_at: null, revoked_at: null, expires_at: new Date('2026-12-08T12:00:00Z') };

  it('are open, accepted, revoked or expired (at the instant of expiry it has expired)', () => {
    expect(invitationState(open, now)).toBe('open');
    expect(invitationState({ ...open, accepted_at: now }, now)).toBe('accepted');
    expect(invitationState({ ...open, revoked_at: now }, now)).toBe('revoked');
    expect(invitationState({ ...open, expires_at: now }, now)).toBe('expired');
    expect(invitationState({ ...open, expires_at: new Date(now.getTime() + 1) }, now)).toBe('open');
  });

  it('a link that no longer works says why (410)', () => {
    expect(invitationRefusal('open')).toBeNull();
    expect(invitationRefusal('accepted')).toMatchObject({
      code: 'link_expired',
      message: 'This invitation has already been used.',
    });
    expect(invitationRefusal('revoked')).toMatchObject({
      code: 'link_expired',
      message: 'This invitation has been revoked. Ask the person who invited you for a new one.',
    });
    expect(invitationRefusal('expired')).toMatchObject({
      code: 'link_expired',
      message: 'This invitation has expired. Ask the person who invited you for a new one.',
    });
  });

  it('only the invited address accepts', () => {
    expect(acceptRefusal({ invitedEmail: 'ada@example.com', accountEmail: 'ada@example.com' })).toBeNull();
    expect(acceptRefusal({ invitedEmail: 'ada@example.com', accountEmail: 'eve@example.com' })).toMatchObject({
      code: 'email_mismatch',
      message: 'This invitation was sent to another email address. Sign in with that address to accept it.',
    });
  });
});

describe('organization names', () => {
  it('are trimmed, inner spaces collapsed, 1 to 100 characters', () => {
    expect(normalizeOrganizationName('  Acme   Labs ')).toBe('Acme Labs');
    expect(organizationNameProblem('')).toBe('Enter a name for the organization.');
    expect(organizationNameProblem('a'.repeat(100))).toBeNull();
    expect(organizationNameProblem('a'.repeat(101))).toBe('The organization name can be at most 100 characters.');
    expect(organizationNameProblem('a\u0000b')).toBe('The organization name cannot contain control characters.');
  });
});

describe('audit cursors', () => {
  it('round-trip the last entry of a page and refuse anything else', () => {
    const last = { at: new Date('2026-12-01T12:00:00.123Z'), id: '01937a1e-4c5b-7000-8000-000000000001' };
    const cursor = encodeAuditCursor(last);
    expect(cursor).toMatch(/^[\w-]{32}$/);
    expect(decodeAuditCursor(cursor)).toEqual(last);
    for (const bad of ['', 'x', 'bm90IGEgY3Vyc29y', `${cursor}A`, `${cursor.slice(0, 31)}.`, '/'.repeat(32)])
      expect(decodeAuditCursor(bad)).toBeNull();
  });
});

describe('an organization is Active while a subscription of it entitles it', () => {
  const current = { is_active: true, plan: 'business10' };
  const at = (day: number) => new Date(Date.UTC(2026, 11, day));

  it('knowing no subscription yet changes nothing', () => {
    expect(organizationStanding([], current)).toEqual(current);
    expect(organizationStanding([], { is_active: false, plan: 'business50' })).toEqual({
      is_active: false,
      plan: 'business50',
    });
  });

  it('active or past due entitle; canceled does not, and the plan it had stays', () => {
    expect(organizationStanding([{ plan_code: 'business10', status: 'past_due', updated_at: at(1) }], current)).toEqual(
      current,
    );
    expect(organizationStanding([{ plan_code: 'business10', status: 'canceled', updated_at: at(2) }], current)).toEqual(
      { is_active: false, plan: 'business10' },
    );
  });

  it('a new subscription after the old one ended makes it Active again, on the new plan', () => {
    const subs = [
      { plan_code: 'business10', status: 'canceled', updated_at: at(2) },
      { plan_code: 'business50', status: 'active', updated_at: at(5) },
    ];
    expect(organizationStanding(subs, { is_active: false, plan: 'business10' })).toEqual({
      is_active: true,
      plan: 'business50',
    });
    // An ended subscription reported later does not outweigh one that still entitles it.
    expect(
      organizationStanding([...subs, { plan_code: 'business250', status: 'canceled', updated_at: at(9) }], current),
    ).toEqual({ is_active: true, plan: 'business50' });
  });
});

describe("a device's name in the audit log, whatever order its events arrived in", () => {
  const at = (minute: number) => new Date(Date.UTC(2026, 11, 1, 12, minute));
  const namings = [
    { name: 'Laptop', at: at(0) },
    { name: 'Work laptop', at: at(10) },
  ];

  it('is the newest name given at or before the entry', () => {
    expect(deviceNameAt(namings, at(5))).toBe('Laptop');
    expect(deviceNameAt(namings, at(10))).toBe('Work laptop');
    expect(deviceNameAt([...namings].reverse(), at(30))).toBe('Work laptop');
  });

  it('else the first one after it (an entry handled before the device was added), else none', () => {
    expect(deviceNameAt(namings.slice(1), at(5))).toBe('Work laptop');
    expect(deviceNameAt([], at(5))).toBeNull();
  });
});

describe('inviterRefusal (issue #20: an invitation needs its sender to still be an owner or admin)', () => {
  it.each([
    ['owner', null],
    ['admin', null],
    ['member', 'link_expired'],
    [null, 'link_expired'],
  ] as Array<[Role, string | null]>)('a sender who is %s now', (role, code) => {
    expect(inviterRefusal(role)?.code ?? null).toBe(code);
  });
});

describe("shownActor (issue #20: customers see Quietwire support, never an operator's identity)", () => {
  const members = new Set(['owner-id', 'left-id']);
  const everMember = (id: string) => members.has(id);
  const support = { user_id: null, name: 'Quietwire support' };
  const entry = (actor_id: string | null, details: Record<string, unknown> = {}, actor_name = 'Ann') => ({
    actor_id,
    actor_name,
    details,
  });

  it('shows a member, present or former, by the name the entry kept', () => {
    expect(shownActor(entry('owner-id'), everMember)).toEqual({ user_id: 'owner-id', name: 'Ann' });
    expect(shownActor(entry('left-id', { reason: 'manager' }), everMember)).toEqual({
      user_id: 'left-id',
      name: 'Ann',
    });
  });

  it('shows someone who never was a member as Quietwire support', () => {
    expect(shownActor(entry('operator-id', {}, 'ops@quietwire.test'), everMember)).toEqual(support);
  });

  it('shows a device switched off from the console (reason admin) as Quietwire support, even by a member', () => {
    expect(shownActor(entry('owner-id', { reason: 'admin' }), everMember)).toEqual(support);
  });

  it('shows an organization suspended by an operator as Quietwire support, and the system as nobody', () => {
    expect(shownActor(entry(null, { by: 'operator', plan: 'business10' }), everMember)).toEqual(support);
    expect(shownActor(entry(null, { plan: 'business10' }), everMember)).toBeNull();
  });
});
