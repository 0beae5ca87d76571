import { describe, expect, it } from 'vitest';
import { keyRotationRefusal, scheduledRotationStep } from '../src/keys/key-rules.ts';

const placed = {
  key_rotation_days: 30,
  client_keys: false,
  is_active: true,
  public_key: 'pk',
  node_id: 'node',
  ipv4: '10.0.0.2',
  ipv6: 'fd00::2',
};

describe('scheduledRotationStep', () => {
  it('rotates an active, placed, server-keyed device on a schedule', () => {
    expect(scheduledRotationStep(placed)).toBe('rotate');
  });

  it('ends the schedule of a browser-keyed device, and of one without a schedule', () => {
    expect(scheduledRotationStep({ ...placed, client_keys: true })).toBe('end');
    expect(scheduledRotationStep({ ...placed, key_rotation_days: null })).toBe('end');
  });

  it('moves the schedule on for a suspended device, revoked keys, or a device without a node or address', () => {
    for (const change of [
      { is_active: false },
      { public_key: null },
      { node_id: null },
      { ipv4: null },
      { ipv6: null },
    ]) {
      expect(scheduledRotationStep({ ...placed, ...change })).toBe('reschedule');
    }
  });
});

describe('keyRotationRefusal', () => {
  it('lets any device turn its schedule off', () => {
    expect(keyRotationRefusal({ client_keys: true, public_key: null }, null)).toBeNull();
  });

  it('refuses a schedule for a browser-made key and for revoked keys, with the reason', () => {
    expect(keyRotationRefusal({ client_keys: true, public_key: 'pk' }, 30)?.message).toContain('made in your browser');
    expect(keyRotationRefusal({ client_keys: false, public_key: null }, 90)?.message).toContain('were revoked');
    expect(keyRotationRefusal({ client_keys: false, public_key: 'pk' }, 90)).toBeNull();
  });
});
