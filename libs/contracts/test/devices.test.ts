import { describe, expect, it } from 'vitest';
import {
  type ConnectionFacts,
  connectedWindowSeconds,
  connectedWindowText,
  deviceNameMaxLength,
  deviceOverviewOf,
  isConnected,
  isDeviceConnected,
  vpnStatusOf,
  normalizeDeviceName,
  validDeviceName,
} from '../src/index.ts';

describe('isConnected', () => {
  const now = 1_732_238_500;

  it.each([
    [0, now, false, 'never shook hands'],
    [now, now, true, 'just now'],
    [now - 1, now, true, '1 s ago'],
    [now - 179, now, true, '179 s ago'],
    [now - 180, now, false, 'exactly 180 s ago'],
    [now - 181, now, false, '181 s ago'],
    [now - 3600, now, false, 'an hour ago'],
    [now + 5, now, true, 'slightly in the future (clock skew)'],
  ])('handshake %i at %i → %s (%s)', (handshake, at, expected) => {
    expect(isConnected(handshake, at)).toBe(expected);
  });

  it('takes another window, and says its own in words', () => {
    expect(isConnected(now - 200, now, 300)).toBe(true);
    expect(isConnected(now - 60, now, 60)).toBe(false);
    expect(connectedWindowSeconds).toBe(180);
    expect(connectedWindowText).toBe('3 minutes');
  });
});

describe('isDeviceConnected: the one rule every page uses', () => {
  const now = new Date('2026-11-24T12:00:00.000Z');
  const recent = new Date(now.getTime() - 10_000);
  const on = { isActive: true, hasKey: true, latestHandshake: recent };

  it('is connected when on, with keys, and a handshake within the window (a Date or its ISO text)', () => {
    expect(isDeviceConnected(on, now)).toBe(true);
    expect(isDeviceConnected({ ...on, latestHandshake: recent.toISOString() }, now)).toBe(true);
  });

  it.each<[ConnectionFacts, string]>([
    [{ ...on, isActive: false }, 'suspended, however recent its handshake'],
    [{ ...on, hasKey: false }, 'its keys revoked'],
    [{ ...on, latestHandshake: null }, 'never shook hands'],
    [{ ...on, latestHandshake: new Date(now.getTime() - 180_000) }, 'its handshake 180 s old'],
  ])('is not connected: %o (%s)', (facts) => {
    expect(isDeviceConnected(facts, now)).toBe(false);
  });

  it('makes the tiles: Online with one connected device in scope, else Idle', () => {
    expect(vpnStatusOf(0)).toBe('Idle');
    expect(vpnStatusOf(3)).toBe('Online');
    expect(deviceOverviewOf([])).toEqual({ devices: 0, connected: 0, vpn_status: 'Idle' });
    expect(deviceOverviewOf([{ is_connected: false }, { is_connected: true }, { is_connected: false }])).toEqual({
      devices: 3,
      connected: 1,
      vpn_status: 'Online',
    });
  });
});

describe('device names', () => {
  it('trims and folds white space, refusing an empty name with the spec text and a long one', () => {
    expect(normalizeDeviceName('  Work \t laptop  ')).toBe('Work laptop');
    expect(normalizeDeviceName(42)).toBe('');
    expect(() => validDeviceName('   ')).toThrow('Please enter a device name.');
    expect(validDeviceName('x'.repeat(deviceNameMaxLength))).toHaveLength(deviceNameMaxLength);
    expect(() => validDeviceName('x'.repeat(deviceNameMaxLength + 1))).toThrow(
      `Device name can be at most ${deviceNameMaxLength} characters.`,
    );
  });
});
