import { describe, expect, it } from 'vitest';
import { memberControls } from '../src/features/organizations/utils/organization-rules';

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
