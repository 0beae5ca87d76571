import { describe, expect, it } from 'vitest';
import {
  connectedWindowSeconds,
  connectedWindowText,
  deviceNameMaxLength,
  isConnected,
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
