import { normaliseRegion, regionLabel, type SuspensionLevel } from '@qw/contracts';
import { suspensionNote } from './suspension';

/**
 * What a device's row says about it (issue #26), as functions of data: tested without a browser in
 * web/test/device-facts.test.ts.
 */

type Suspendable = { is_active: boolean; suspended_by?: SuspensionLevel | null | undefined };

/**
 * 'Active' or 'Suspended' (issue #26: not "Active: No"), and who holds it off when that was the
 * organization's admin or Quietwire support (`suspensionNote`); a device its person switched off,
 * or one off because its plan ended or its organization is Suspended, says only 'Suspended' (the
 * page's notice above says why in the last two cases).
 */
export function deviceStatus(device: Suspendable): { label: 'Active' | 'Suspended'; by: string | null } {
  return device.is_active ? { label: 'Active', by: null } : { label: 'Suspended', by: suspensionNote(device) };
}

/** A suspended device offers no configuration: it cannot connect until it is activated. */
export function offersConfig(device: { is_active: boolean; client_keys: boolean }): boolean {
  return device.is_active && !device.client_keys;
}

/**
 * How long ago, as a person reads it: 'just now' (under a minute), '2 min ago', '3 h ago',
 * '4 days ago'; 'Never' without a time. A time a little ahead of this clock is 'just now'.
 */
export function timeAgo(at: string | null | undefined, now: Date): string {
  if (!at) return 'Never';
  const seconds = Math.floor((now.getTime() - new Date(at).getTime()) / 1000);
  if (Number.isNaN(seconds)) return 'Never';
  if (seconds < 60) return 'just now';
  const minutes = Math.floor(seconds / 60);
  if (minutes < 60) return `${minutes} min ago`;
  const hours = Math.floor(minutes / 60);
  if (hours < 24) return `${hours} h ago`;
  const days = Math.floor(hours / 24);
  return days === 1 ? '1 day ago' : `${days} days ago`;
}

const byteUnits = ['B', 'KB', 'MB', 'GB', 'TB'] as const;

/** 1536 → '1.5 KB' (powers of 1024, one decimal above bytes). */
export function formatBytes(bytes: number | null | undefined): string {
  let value = bytes ?? 0;
  let unit = 0;
  while (value >= 1024 && unit < byteUnits.length - 1) {
    value /= 1024;
    unit += 1;
  }
  return unit === 0 ? `${value} B` : `${value.toFixed(1)} ${byteUnits[unit]}`;
}

/** A WireGuard public key shortened for a table cell: its first 8 and last 4 characters. */
export function shortKey(key: string): string {
  return key.length <= 16 ? key : `${key.slice(0, 8)}…${key.slice(-4)}`;
}

type Server = { name: string; region: string; city: string | null; reachable?: boolean };

/** A server's region as people read it: 'Europe' (a node's own name for it, 'eu-central', included). */
export function regionText(region: string): string {
  return regionLabel(normaliseRegion(region));
}

/** The device's server in words: its city and region ('Frankfurt, Europe'), or its name where no city is known. */
export function serverText(node: Server | null): string {
  if (!node) return 'Not placed yet';
  return `${node.city?.trim() || node.name}, ${regionText(node.region)}`;
}

export type ConnectionState = 'Connected' | 'Not connected' | 'Server unreachable';

/**
 * Issue #23: a device whose server stopped reporting reads 'Server unreachable', not 'Not
 * connected': the fault is ours, not the device's (and its last handshake is stale anyway).
 */
export function connectionState(device: { is_connected: boolean; node: Server | null }): ConnectionState {
  if (device.node && device.node.reachable === false) return 'Server unreachable';
  return device.is_connected ? 'Connected' : 'Not connected';
}

/** A drain found no room for the device in its region: it stays on its old server meanwhile. */
export function heldText(device: { held_since: string | null; node: Server | null }): string | null {
  if (!device.held_since) return null;
  return device.node ? `Waiting for room in ${regionText(device.node.region)}` : 'Waiting for room on a server';
}

/**
 * After a move (a region change or a drain): the device's config names its old server until it is
 * downloaded again. The old peer stays until the device connects through the new server, so the
 * old file keeps working until then.
 */
export function movedText(device: {
  config_changed_at: string | null;
  node: Server | null;
  client_keys: boolean;
}): string | null {
  if (!device.config_changed_at || !device.node) return null;
  const moved = `Moved to ${serverText(device.node)}.`;
  if (device.client_keys)
    return `${moved} Its key was made in a browser, so Quietwire can’t write its new configuration: use Request key to make a new one.`;
  return `${moved} Download its configuration again: the old one works until the device connects with the new one, then stops.`;
}
