import { describe, expect, it } from 'vitest';
import { adminPageSizes } from '@qw/contracts';
import {
  adminRemovalRefusal,
  containsPattern,
  grantsAdmin,
  organizationListOrder,
  pageOf,
  userListOrder,
  type AdminListRow,
} from '../src/admin/admin-rules.ts';

const row = (email: string, source: AdminListRow['source'] = 'operator', grants = true): AdminListRow => ({
  email,
  is_admin: grants,
  role: grants ? 'admin' : null,
  source,
});
const code = (error: ReturnType<typeof adminRemovalRefusal>) => error?.code ?? null;

describe('taking an address off the admin list', () => {
  const list = [
    row('root@q.test', 'environment'),
    row('ann@q.test'),
    row('bob@q.test'),
    row('old@q.test', 'environment', false),
  ];

  it('another operator address, with an admin left: allowed', () => {
    expect(adminRemovalRefusal(list, 'bob@q.test', 'ann@q.test')).toBeNull();
  });

  it('an address not on the list, or one that no longer grants admin: 404', () => {
    expect(code(adminRemovalRefusal(list, 'nobody@q.test', 'ann@q.test'))).toBe('not_found');
    expect(code(adminRemovalRefusal(list, 'old@q.test', 'ann@q.test'))).toBe('not_found');
  });

  it('one’s own address: 409 cannot_remove_self, whatever its source and however many admins remain', () => {
    expect(code(adminRemovalRefusal(list, 'ann@q.test', 'ann@q.test'))).toBe('cannot_remove_self');
    expect(code(adminRemovalRefusal(list, 'root@q.test', 'ROOT@q.test'))).toBe('cannot_remove_self');
  });

  it('an address from ADMIN_EMAILS: 409 conflict (the configuration sets it again)', () => {
    expect(code(adminRemovalRefusal(list, 'root@q.test', 'ann@q.test'))).toBe('conflict');
  });

  it('the last address that grants admin: 409 last_admin', () => {
    // An operator whose own rights are going (a stale session) asks to remove the only one left.
    const lone = [row('ann@q.test'), row('old@q.test', 'environment', false)];
    expect(code(adminRemovalRefusal(lone, 'ann@q.test', 'bob@q.test'))).toBe('last_admin');
    expect(code(adminRemovalRefusal([row('ann@q.test'), row('bob@q.test')], 'ann@q.test', 'bob@q.test'))).toBeNull();
  });

  it('a row grants admin by is_admin or by role admin (spec §3 admin_emails)', () => {
    expect(grantsAdmin({ is_admin: true, role: null })).toBe(true);
    expect(grantsAdmin({ is_admin: false, role: 'admin' })).toBe(true);
    expect(grantsAdmin({ is_admin: false, role: 'viewer' })).toBe(false);
  });
});

describe('search and paging', () => {
  it('searches for the text anywhere, taking %, _ and \\ literally', () => {
    expect(containsPattern('ada')).toBe('%ada%');
    expect(containsPattern('50%_off\\')).toBe('%50\\%\\_off\\\\%');
  });

  it('pages from 1 with the contract’s default size, kept within 10 to 100', () => {
    expect(pageOf({})).toEqual({ page: 1, perPage: adminPageSizes.default, offset: 0 });
    expect(pageOf({ page: 3, per_page: 10 })).toEqual({ page: 3, perPage: 10, offset: 20 });
    expect(pageOf({ page: 0, per_page: 1000 })).toEqual({ page: 1, perPage: 100, offset: 0 });
    expect(pageOf({ per_page: 1 }).perPage).toBe(10);
  });
});

describe('list orders of the console’s Accounts', () => {
  it('people: newest first by default; e-mail and name A to Z unless reversed', () => {
    expect(userListOrder({})).toEqual({ column: 'created_at', dir: 'desc' });
    expect(userListOrder({ sort: 'created_at' })).toEqual({ column: 'created_at', dir: 'desc' });
    expect(userListOrder({ sort: 'email' })).toEqual({ column: 'email', dir: 'asc' });
    expect(userListOrder({ sort: 'full_name', dir: 'desc' })).toEqual({ column: 'full_name', dir: 'desc' });
    expect(userListOrder({ sort: 'nonsense' })).toEqual({ column: 'created_at', dir: 'asc' });
  });
  it('organizations: newest first by default; name A to Z; members most first', () => {
    expect(organizationListOrder({})).toEqual({ column: 'created_at', dir: 'desc' });
    expect(organizationListOrder({ sort: 'name' })).toEqual({ column: 'name', dir: 'asc' });
    expect(organizationListOrder({ sort: 'members' })).toEqual({ column: 'members', dir: 'desc' });
    expect(organizationListOrder({ sort: 'name', dir: 'desc' })).toEqual({ column: 'name', dir: 'desc' });
  });
});
