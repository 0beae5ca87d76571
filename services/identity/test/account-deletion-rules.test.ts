import { describe, expect, it } from 'vitest';
import {
  deletionRefusal,
  organizationsToDelete,
  type MembershipAtDeletion,
} from '../src/accounts/account-deletion-rules.ts';

const org = (over: Partial<MembershipAtDeletion & { id: string }>) => ({
  id: 'o1',
  name: 'Acme',
  role: 'owner' as const,
  owners: 1,
  members: 1,
  isActive: false,
  ...over,
});

describe('deleting an account inside organizations', () => {
  it('lets anyone go who owns no organization alone', () => {
    expect(deletionRefusal([])).toBeNull();
    expect(deletionRefusal([org({ role: 'member', owners: 1, members: 3, isActive: true })])).toBeNull();
    expect(deletionRefusal([org({ role: 'admin', owners: 1, members: 3, isActive: true })])).toBeNull();
    expect(deletionRefusal([org({ owners: 2, members: 3, isActive: true })])).toBeNull();
  });

  it('refuses the only owner while others belong to it, with what to do', () => {
    expect(deletionRefusal([org({ members: 2 })])).toBe(
      'You are the only owner of Acme. Make another member an owner, or cancel its plan and remove its members, before deleting your account.',
    );
  });

  it('refuses the only owner while its plan runs, even alone', () => {
    expect(deletionRefusal([org({ isActive: true })])).toBe(
      'You are the only owner of Acme, and its plan is still active. Cancel its plan before deleting your account.',
    );
  });

  it('takes along only organizations with nobody else and no plan', () => {
    expect(organizationsToDelete([org({ id: 'alone' }), org({ id: 'shared', owners: 2, members: 2 })])).toEqual([
      'alone',
    ]);
    expect(organizationsToDelete([org({ isActive: true })])).toEqual([]);
    expect(organizationsToDelete([org({ role: 'member' })])).toEqual([]);
  });
});
