import { describe, expect, it } from 'vitest';
import {
  accountSuspendedRefusal,
  afterAccountLifted,
  heldByAccount,
} from '../src/account-standing/account-standing-rules.ts';
import { accountSuspensionOf, suspensionChange } from '../../identity/src/admin/account-suspension-rules.ts';

describe('an account suspended by the operator', () => {
  it('takes over devices that are on or held only by a plan or organization, not ones a person switched off', () => {
    expect(heldByAccount({ is_active: true, suspended_by: null })).toBe(true);
    expect(heldByAccount({ is_active: false, suspended_by: null })).toBe(true);
    expect(heldByAccount({ is_active: false, suspended_by: 'person' })).toBe(false);
    expect(heldByAccount({ is_active: false, suspended_by: 'operator' })).toBe(false);
  });

  it('gives each held device back to what would hold it without the account: nothing, its plan, its organization', () => {
    expect(afterAccountLifted({ orgId: null, entitled: true, organizationSuspended: false })).toEqual({
      is_active: true,
    });
    expect(afterAccountLifted({ orgId: null, entitled: false, organizationSuspended: false })).toEqual({
      is_active: false,
      suspended_reason: 'subscription_ended',
    });
    expect(afterAccountLifted({ orgId: 'o', entitled: true, organizationSuspended: true })).toEqual({
      is_active: false,
      suspended_reason: 'organization_suspended',
    });
    expect(afterAccountLifted({ orgId: 'o', entitled: false, organizationSuspended: false })).toEqual({
      is_active: false,
      suspended_reason: 'subscription_ended',
    });
  });

  it('tells the person it is their account, and a manager it is their colleague’s', () => {
    expect(accountSuspendedRefusal('own').message).toMatch(/^Your account is suspended/);
    expect(accountSuspendedRefusal('other').message).toMatch(/^This person's account is suspended/);
    expect(accountSuspendedRefusal('own').code).toBe('account_suspended');
  });

  it('needs a reason, never the operator’s own account, and one suspension at a time', () => {
    const base = { operatorId: 'op', userId: 'u', current: null };
    expect(suspensionChange({ ...base, suspended: true, reason: '  Fraud check. ' })).toEqual({
      reason: 'Fraud check.',
    });
    expect(() => suspensionChange({ ...base, suspended: true, reason: ' ' })).toThrow(/Say why/);
    expect(() => suspensionChange({ ...base, suspended: true, reason: undefined })).toThrow(/Say why/);
    expect(() => suspensionChange({ ...base, userId: 'op', suspended: true, reason: 'x' })).toThrow(/your own/);
    const current = accountSuspensionOf({ suspended_at: new Date('2026-11-25T08:00:00Z'), suspension_reason: 'x' });
    expect(current).toEqual({ reason: 'x', since: '2026-11-25T08:00:00.000Z' });
    expect(() => suspensionChange({ ...base, current, suspended: true, reason: 'y' })).toThrow(/already/);
    expect(suspensionChange({ ...base, current, suspended: false, reason: undefined })).toEqual({ reason: null });
    expect(() => suspensionChange({ ...base, suspended: false, reason: undefined })).toThrow(/not suspended/);
    expect(accountSuspensionOf({ suspended_at: null, suspension_reason: null })).toBeNull();
  });
});
