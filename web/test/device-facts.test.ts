import { describe, expect, it } from 'vitest';
import { assigneeQuotaRefusalText } from '@qw/contracts';
import {
  deviceStatus,
  formatBytes,
  offersConfig,
  serverText,
  shortKey,
  timeAgo,
} from '../src/features/devices/utils/device-facts';
import { quotaRefusal } from '../../services/provisioning/src/organizations/org-device-rules.ts';

/** Issue #26: what a device's row says about it, without a browser. */
describe('a device’s status', () => {
  it('reads Active, or Suspended with who did it when that was the organization or Quietwire support', () => {
    expect(deviceStatus({ is_active: true, suspended_by: null })).toEqual({ label: 'Active', by: null });
    expect(deviceStatus({ is_active: false, suspended_by: 'person' })).toEqual({ label: 'Suspended', by: null });
    expect(deviceStatus({ is_active: false, suspended_by: null })).toEqual({ label: 'Suspended', by: null });
    expect(deviceStatus({ is_active: false, suspended_by: 'organization' })).toEqual({
      label: 'Suspended',
      by: "Suspended by your organization's admin",
    });
    expect(deviceStatus({ is_active: false, suspended_by: 'operator' })).toEqual({
      label: 'Suspended',
      by: 'Suspended by Quietwire support: contact support',
    });
  });

  it('offers Config and QR code only while active and when the server holds the key', () => {
    expect(offersConfig({ is_active: true, client_keys: false })).toBe(true);
    expect(offersConfig({ is_active: false, client_keys: false })).toBe(false);
    expect(offersConfig({ is_active: true, client_keys: true })).toBe(false);
  });
});

describe('the details under a device’s row', () => {
  const now = new Date('2026-11-25T12:00:00Z');
  const ago = (seconds: number) => new Date(now.getTime() - seconds * 1000).toISOString();

  it('says how long ago the last handshake was, as people read it', () => {
    expect(timeAgo(null, now)).toBe('Never');
    expect(timeAgo(ago(0), now)).toBe('just now');
    expect(timeAgo(ago(59), now)).toBe('just now');
    expect(timeAgo(ago(-5), now)).toBe('just now');
    expect(timeAgo(ago(60), now)).toBe('1 min ago');
    expect(timeAgo(ago(150), now)).toBe('2 min ago');
    expect(timeAgo(ago(3599), now)).toBe('59 min ago');
    expect(timeAgo(ago(3600), now)).toBe('1 h ago');
    expect(timeAgo(ago(86_399), now)).toBe('23 h ago');
    expect(timeAgo(ago(86_400), now)).toBe('1 day ago');
    expect(timeAgo(ago(3 * 86_400), now)).toBe('3 days ago');
  });

  it('writes bytes in binary units, shortens the key and names the server', () => {
    expect(formatBytes(0)).toBe('0 B');
    expect(formatBytes(1023)).toBe('1023 B');
    expect(formatBytes(1536)).toBe('1.5 KB');
    expect(formatBytes(5 * 1024 * 1024)).toBe('5.0 MB');
    expect(formatBytes(undefined)).toBe('0 B');
    const key = 'AbCdEfGhIjKlMnOpQrStUvWxYz0123456789+/abcd=';
    expect(shortKey(key)).toBe('AbCdEfGh…bcd=');
    expect(serverText(null)).toBe('Not placed yet');
    expect(serverText({ name: 'eu-1', region: 'eu-central' })).toBe('eu-1 (eu-central)');
  });
});

describe('the per-person limit', () => {
  it('is said by the page in the very words provisioning refuses with', () => {
    for (const forSelf of [true, false]) {
      const refusal = quotaRefusal({ assigneeDevices: 5, organizationDevices: 5, deviceCap: 10 }, forSelf);
      expect(refusal?.message).toBe(assigneeQuotaRefusalText(5, forSelf));
    }
    expect(assigneeQuotaRefusalText(5, true)).toBe(
      'You already have 5/5 organization devices, the most one person may have. Remove one of them to add another.',
    );
  });
});
