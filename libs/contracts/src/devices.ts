import { AppError } from './errors.ts';

/**
 * The device rules the services, the gateway and the web share: one home for each, so a form,
 * a tile and a service can never disagree.
 */

/** Spec §5 asks for a non-empty name; we also cap it. */
export const deviceNameMaxLength = 64;

/** The name as stored: trimmed, inner runs of white space made one space. */
export function normalizeDeviceName(raw: unknown): string {
  return typeof raw === 'string' ? raw.trim().replace(/\s+/g, ' ') : '';
}

/** The stored name, or the spec's refusal ('Please enter a device name.') or the length refusal. */
export function validDeviceName(raw: unknown): string {
  const name = normalizeDeviceName(raw);
  if (!name) throw new AppError('validation_failed', 'Please enter a device name.', { field: 'name' });
  if (name.length > deviceNameMaxLength) {
    throw new AppError('validation_failed', `Device name can be at most ${deviceNameMaxLength} characters.`, {
      field: 'name',
    });
  }
  return name;
}

/**
 * Who switched a device off, as a level of authority (issue #20): its person, an owner or admin of
 * its organization, or the service operator. Only that level or a higher one lifts the suspension.
 * A device off only because its plan ended or its organization is Suspended has no level (null).
 */
export const suspensionLevels = ['person', 'organization', 'operator'] as const;
export type SuspensionLevel = (typeof suspensionLevels)[number];

/** Whether `actor` may set or lift a suspension `held` holds (null: none): its own level or a lower one's. */
export function outranks(actor: SuspensionLevel, held: SuspensionLevel | null): boolean {
  return held === null || suspensionLevels.indexOf(actor) >= suspensionLevels.indexOf(held);
}

/** Connected: the peer's latest handshake is younger than this (WireGuard renews it every 2 minutes). */
export const connectedWindowSeconds = 180;

/** The window in words, for the page that explains "Connected". */
export const connectedWindowText = `${connectedWindowSeconds / 60} minutes`;

export function isConnected(
  latestHandshakeSeconds: number,
  nowSeconds: number,
  windowSeconds: number = connectedWindowSeconds,
): boolean {
  return latestHandshakeSeconds > 0 && nowSeconds - latestHandshakeSeconds < windowSeconds;
}

/** What "connected" is decided from: the device's row in provisioning (its one read model). */
export type ConnectionFacts = {
  isActive: boolean;
  hasKey: boolean;
  /** The newest handshake a node reported (telemetry tells provisioning); null: none yet. */
  latestHandshake: Date | string | null;
};

/**
 * Connected now: on (not suspended by anyone, its plan and organization in order), with keys,
 * and a handshake within the window. The one definition: the customer's list and overview, the
 * organization's, the operator's device list and Telemetry page all show this, so a suspended
 * device whose last handshake is recent is not connected anywhere. The SQL that filters and counts
 * the operator's pages says the same (`connectedNow` in provisioning's fleet service and in
 * telemetry's admin service, whose copy of who is suspended comes from provisioning's events).
 */
export function isDeviceConnected(facts: ConnectionFacts, now: Date): boolean {
  if (!facts.isActive || !facts.hasKey || facts.latestHandshake === null) return false;
  const handshake = new Date(facts.latestHandshake).getTime();
  return isConnected(handshake / 1000, now.getTime() / 1000);
}

/** Spec §2/§4: VPN Status is Online if at least one device in scope is connected, else Idle. */
export function vpnStatusOf(connected: number): 'Online' | 'Idle' {
  return connected > 0 ? 'Online' : 'Idle';
}

/** Spec §2's three tiles (Devices, Connected, VPN Status) of the devices in scope. */
export function deviceOverviewOf(devices: ReadonlyArray<{ is_connected: boolean }>): {
  devices: number;
  connected: number;
  vpn_status: 'Online' | 'Idle';
} {
  const connected = devices.filter((device) => device.is_connected).length;
  return { devices: devices.length, connected, vpn_status: vpnStatusOf(connected) };
}

/**
 * "Unlimited devices" (Personal and Gaming) under fair use: a ceiling no household reaches, which
 * stops a script from filling a node's addresses. The Devices page says so.
 */
export const fairUseDeviceCeiling = 100;

/** How often a person may add devices and ask for new keys (each makes keys, mail and node work). */
export const deviceRateLimits = {
  creations: { max: 30, windowSeconds: 3600 },
  keyRequests: { max: 10, windowSeconds: 3600 },
  /** Region changes that move the device (each mails its person and leaves a peer on the old node). */
  moves: { max: 10, windowSeconds: 3600 },
} as const;

/**
 * Scheduled key rotation (opt-in per device): every 30 or 90 days a new key pair, its config
 * mailed, and the old key kept on the node for a grace period before it is removed.
 */
export const keyRotationDays = [30, 90] as const;
export type KeyRotationDays = (typeof keyRotationDays)[number];
/** How long the key a scheduled rotation replaced keeps working on the node. */
export const keyRotationGraceHours = 24;

/** The choices the Devices page offers, in its words. */
export function keyRotationLabel(days: KeyRotationDays | null): string {
  return days === null ? 'Off' : `Every ${days} days`;
}

/** When the next scheduled rotation is due: `days` after the newest key was made. */
export function nextKeyRotationAt(keyCreatedAt: Date, days: KeyRotationDays): Date {
  return new Date(keyCreatedAt.getTime() + days * 86_400_000);
}
