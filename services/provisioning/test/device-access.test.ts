import { describe, expect, it } from 'vitest';
import type { Caller } from '@qw/contracts';
import {
  deviceAccess,
  mayDo,
  type DeviceAccess,
  type DeviceOperation,
  type OrganizationRole,
} from '../src/devices/device-access.ts';

const person = (userId: string | null, isAdmin = false): Caller => ({
  userId,
  accountType: 'personal',
  isAdmin,
  emailVerified: true,
});
const personal = { user_id: 'ann', org_id: null };
const orgDevice = { user_id: 'ann', org_id: 'org-1' };

describe('who a device is to a caller', () => {
  it('is its own person’s, nobody else’s but an operator’s', () => {
    expect(deviceAccess(personal, person('ann'))).toBe('own');
    expect(deviceAccess(personal, person('bob'))).toBe('none');
    expect(deviceAccess(personal, person(null))).toBe('none');
    expect(deviceAccess(personal, person('ops', true))).toBe('operate');
    // A role in some organization says nothing about a personal device.
    expect(deviceAccess(personal, person('bob'), 'owner')).toBe('none');
  });

  it.each<[OrganizationRole | null, string, DeviceAccess]>([
    ['owner', 'bob', 'manage'],
    ['admin', 'bob', 'manage'],
    ['member', 'bob', 'none'],
    [null, 'bob', 'none'],
    ['member', 'ann', 'own'],
  ])("an organization's %s (%s) on someone's device: %s", (role, who, expected) => {
    expect(deviceAccess(orgDevice, person(who), role)).toBe(expected);
  });
});

describe('what each may do', () => {
  const operations: DeviceOperation[] = ['view', 'suspend', 'activate', 'rename', 'remove', 'request-key', 'config'];
  const allowed = (access: DeviceAccess) => operations.filter((operation) => mayDo(access, operation));

  it('gives the configuration (a private key) to the device’s own person only', () => {
    expect(allowed('own')).toEqual(operations);
    expect(allowed('manage')).toEqual(['view', 'suspend', 'activate', 'rename', 'remove', 'request-key']);
    expect(allowed('operate')).toEqual(['view', 'suspend', 'activate']);
    expect(allowed('none')).toEqual([]);
  });
});
