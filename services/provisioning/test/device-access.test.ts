import { describe, expect, it } from 'vitest';
import type { Caller, OrganizationRole } from '@qw/contracts';
import {
  deviceAccess,
  deviceRefusal,
  mayDo,
  type DeviceAccess,
  type DeviceOperation,
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

  it.each<[OrganizationRole, OrganizationRole, DeviceAccess]>([
    ['owner', 'owner', 'manage'],
    ['owner', 'admin', 'manage'],
    ['owner', 'member', 'manage'],
    ['admin', 'owner', 'see'],
    ['admin', 'admin', 'manage'],
    ['admin', 'member', 'manage'],
    ['member', 'owner', 'none'],
    ['member', 'member', 'none'],
  ])("an organization's %s on a device assigned to its %s: %s", (role, assigneeRole, expected) => {
    expect(deviceAccess(orgDevice, person('bob'), role, assigneeRole)).toBe(expected);
    // A platform admin who is the organization's admin acts there as its admin.
    expect(deviceAccess(orgDevice, person('bob', true), role, assigneeRole)).toBe(
      expected === 'none' ? 'operate' : expected,
    );
  });
});

describe('what each may do', () => {
  const operations: DeviceOperation[] = [
    'view',
    'suspend',
    'activate',
    'rename',
    'remove',
    'request-key',
    'choose-key',
    'config',
  ];
  const allowed = (access: DeviceAccess) => operations.filter((operation) => mayDo(access, operation));

  it('gives the configuration (a private key) to the device’s own person only', () => {
    expect(allowed('own')).toEqual(operations);
    expect(allowed('manage')).toEqual(['view', 'suspend', 'activate', 'rename', 'remove', 'request-key']);
    expect(allowed('operate')).toEqual(['view', 'suspend', 'activate']);
    expect(allowed('see')).toEqual(['view']);
    expect(allowed('none')).toEqual([]);
  });

  it('tells those who see the device why (403), anyone else that there is no such device (404)', () => {
    const accesses: DeviceAccess[] = ['none', 'operate', 'see', 'manage', 'own'];
    const answers = Object.fromEntries(
      accesses.map((access) => [
        access,
        Object.fromEntries(operations.map((operation) => [operation, deviceRefusal(access, operation)?.code ?? 'ok'])),
      ]),
    );
    expect(answers).toEqual({
      own: Object.fromEntries(operations.map((operation) => [operation, 'ok'])),
      manage: {
        view: 'ok',
        suspend: 'ok',
        activate: 'ok',
        rename: 'ok',
        remove: 'ok',
        'request-key': 'ok',
        'choose-key': 'forbidden',
        config: 'not_found',
      },
      see: { ...Object.fromEntries(operations.map((operation) => [operation, 'forbidden'])), view: 'ok' },
      operate: {
        ...Object.fromEntries(operations.map((operation) => [operation, 'not_found'])),
        view: 'ok',
        suspend: 'ok',
        activate: 'ok',
      },
      none: Object.fromEntries(operations.map((operation) => [operation, 'not_found'])),
    });
    expect(deviceRefusal('see', 'rename')?.message).toBe("Only an owner can act on an owner's devices.");
    expect(deviceRefusal('manage', 'choose-key')?.message).toBe(
      "Only the device's person can choose its key. Request a new key without one instead.",
    );
  });
});
