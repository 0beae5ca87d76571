import { describe, expect, it } from 'vitest';
import { assigneeQuotaRefusalText } from '@qw/contracts';
import {
  connectionState,
  deviceStatus,
  formatBytes,
  heldText,
  movedText,
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
  });
});

describe('a device’s server and region (issue #23)', () => {
  const frankfurt = { name: 'eu-1', region: 'europe', city: 'Frankfurt', reachable: true };
  const device = {
    is_connected: false,
    node: frankfurt,
    held_since: null,
    config_changed_at: null,
    client_keys: false,
  };

  it('names the server by city and region, or by name where no city is known', () => {
    expect(serverText(null)).toBe('Not placed yet');
    expect(serverText(frankfurt)).toBe('Frankfurt, Europe');
    expect(serverText({ name: 'tokyo-1', region: 'asia', city: 'Tokyo' })).toBe('Tokyo, Asia');
    expect(serverText({ name: 'us-1', region: 'north-america', city: '  ' })).toBe('us-1, North America');
    // A node that names its region its own way (an older agent) still reads as the product's region.
    expect(serverText({ name: 'eu-1', region: 'eu-central', city: null })).toBe('eu-1, Europe');
    expect(serverText({ name: 'sg-1', region: 'ap-southeast', city: 'Singapore' })).toBe('Singapore, Asia');
  });

  it('reads Server unreachable, not Not connected, when the server stopped reporting', () => {
    expect(connectionState(device)).toBe('Not connected');
    expect(connectionState({ ...device, is_connected: true })).toBe('Connected');
    expect(connectionState({ ...device, node: { ...frankfurt, reachable: false } })).toBe('Server unreachable');
    // Its last handshake is stale once the server is silent: unreachable wins over Connected.
    expect(connectionState({ is_connected: true, node: { ...frankfurt, reachable: false } })).toBe(
      'Server unreachable',
    );
    expect(connectionState({ is_connected: false, node: null })).toBe('Not connected');
  });

  it('says a held device waits for room in its server’s region', () => {
    expect(heldText(device)).toBeNull();
    expect(heldText({ ...device, held_since: '2026-11-25T04:00:00Z' })).toBe('Waiting for room in Europe');
    expect(heldText({ held_since: '2026-11-25T04:00:00Z', node: null })).toBe('Waiting for room on a server');
  });

  it('tells a moved device to download its config again until it has', () => {
    expect(movedText(device)).toBeNull();
    const moved = { ...device, config_changed_at: '2026-11-25T04:00:00Z' };
    expect(movedText(moved)).toBe(
      'Moved to Frankfurt, Europe. Download its configuration again: the old one works until the device connects with the new one, then stops.',
    );
    expect(movedText({ ...moved, node: null })).toBeNull();
    // A key made in a browser: Quietwire cannot write the file, Request key makes a new one.
    expect(movedText({ ...moved, client_keys: true })).toMatch(/^Moved to Frankfurt, Europe\. .*Request key/);
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
