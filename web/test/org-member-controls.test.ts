import { describe, expect, it } from 'vitest';
import {
  memberControls,
  membersAtDeviceLimit,
  seatsText,
  teamDevicesText,
} from '../src/features/organizations/utils/organization-rules';

/**
 * The users page offers only what identity allows (issue #26: the sole owner's role control is
 * not offered when it can only fail); both read libs/contracts' roleChangeVerdict/removalVerdict.
 */
describe('what the users list offers for each person', () => {
  it('the sole owner, seen by themselves: no role to choose (the note says why) and no Remove', () => {
    expect(memberControls({ viewerRole: 'owner', target: { role: 'owner', self: true }, owners: 1 })).toEqual({
      roles: ['owner'],
      remove: false,
      note: 'The only owner: make someone else an owner first.',
    });
  });

  it('one of two owners may be made admin or member, and removed by the other owner', () => {
    expect(memberControls({ viewerRole: 'owner', target: { role: 'owner', self: false }, owners: 2 })).toEqual({
      roles: ['owner', 'admin', 'member'],
      remove: true,
      note: null,
    });
  });

  it('an admin changes members and admins between the two, never an owner, and removes no owner', () => {
    expect(memberControls({ viewerRole: 'admin', target: { role: 'member', self: false }, owners: 1 })).toEqual({
      roles: ['admin', 'member'],
      remove: true,
      note: null,
    });
    expect(memberControls({ viewerRole: 'admin', target: { role: 'owner', self: false }, owners: 2 })).toEqual({
      roles: ['owner'],
      remove: false,
      note: null,
    });
  });

  it('a member is offered nothing; nobody removes themselves here (they leave)', () => {
    expect(memberControls({ viewerRole: 'member', target: { role: 'admin', self: false }, owners: 1 }).roles).toEqual(
      [],
    );
    expect(memberControls({ viewerRole: 'member', target: { role: 'admin', self: false }, owners: 1 }).remove).toBe(
      false,
    );
    expect(memberControls({ viewerRole: 'owner', target: { role: 'admin', self: true }, owners: 1 }).remove).toBe(
      false,
    );
  });
});

describe('what a team lead reads on the business Overview', () => {
  it('seats count members and open invitations against the cap', () => {
    expect(seatsText({ member_count: 3, user_cap: 10 }, 1)).toBe('4 of 10 seats (1 invited)');
    expect(seatsText({ member_count: 3, user_cap: 10 }, 0)).toBe('3 of 10 seats');
    expect(seatsText({ member_count: 12, user_cap: null }, 2)).toBe('12 members (2 invited)');
  });

  it('devices against the plan, and the people at their 5', () => {
    expect(teamDevicesText({ devices: 7, device_cap: 10 })).toBe('7 of 10 devices');
    expect(teamDevicesText({ devices: 7, device_cap: null })).toBe('7 devices');
    const quota = { per_assignee: 5, by_assignee: { a: 5, b: 4, c: 6 } };
    const users = [
      { user_id: 'a', full_name: 'Ann Lee', email: 'ann@example.com' },
      { user_id: 'b', full_name: 'Bo', email: 'bo@example.com' },
      { user_id: 'c', full_name: ' ', email: 'cy@example.com' },
      { user_id: 'd', full_name: null, email: 'di@example.com' },
    ];
    expect(membersAtDeviceLimit(quota, users)).toEqual(['Ann Lee', 'cy@example.com']);
  });
});
