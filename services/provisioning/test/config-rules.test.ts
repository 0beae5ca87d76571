import { describe, expect, it } from 'vitest';
import {
  configMailCurrent,
  configRefusal,
  hashLinkToken,
  newLinkToken,
  suspendedConfigRefusal,
} from '../src/config-delivery/config-rules.ts';

describe('configRefusal', () => {
  it('writes the file of a server-keyed, placed device', () => {
    expect(configRefusal({ public_key: 'pk', private_key_sealed: 'sealed', node_id: 'n' })).toBeNull();
  });

  it('refuses revoked keys, and a key made in the browser (only that browser has it)', () => {
    expect(configRefusal({ public_key: null, private_key_sealed: null, node_id: 'n' })).toMatchObject({
      code: 'conflict',
      message: 'This device\'s keys were revoked. Use "Request key" to make a new one.',
    });
    expect(configRefusal({ public_key: 'pk', private_key_sealed: null, node_id: 'n' })?.message).toContain(
      'only that browser has its private key',
    );
  });
});

describe('suspendedConfigRefusal', () => {
  it('gives an active device its configuration and refuses a suspended one', () => {
    expect(suspendedConfigRefusal({ is_active: true })).toBeNull();
    expect(suspendedConfigRefusal({ is_active: false })).toMatchObject({
      code: 'conflict',
      message: expect.stringContaining('This device is suspended'),
    });
  });
});

describe('config links', () => {
  it('keeps a hash only, the same for the same token and different for another', () => {
    const token = newLinkToken();
    expect(hashLinkToken(token)).toBe(hashLinkToken(token));
    expect(hashLinkToken(token)).not.toBe(token);
    expect(hashLinkToken(newLinkToken())).not.toBe(hashLinkToken(token));
  });
});

describe('configMailCurrent', () => {
  const keyedAt = new Date('2027-01-01T10:00:00Z');
  const device = { private_key_sealed: 'sealed', node_id: 'n', key_created_at: keyedAt };

  it('sends the mail of the key the device has now, and nothing for a key replaced since', () => {
    expect(configMailCurrent(device, { keyCreatedAt: keyedAt.toISOString() })).toBe(true);
    expect(configMailCurrent(device, { keyCreatedAt: '2026-12-01T10:00:00.000Z' })).toBe(false);
    expect(configMailCurrent({ ...device, private_key_sealed: null }, { keyCreatedAt: keyedAt.toISOString() })).toBe(
      false,
    );
  });
});
