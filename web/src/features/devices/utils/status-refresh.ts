/** Status refreshes by itself: node agents sample every 10 s. */
export const statusRefreshMs = 10_000;

/**
 * While a device added in the last `awaitingFirstHandshakeMs` has never connected, the list asks
 * every second: node agents send a first handshake within about a second (issue #24), and the
 * person who just brought the tunnel up is looking at the page for it.
 */
export const firstHandshakeRefreshMs = 1_000;
export const awaitingFirstHandshakeMs = 15 * 60_000;

export type StatusRow = {
  is_active: boolean;
  public_key: string | null;
  created_at: string;
  latest_handshake: string | null;
};

/** How soon the device list asks again: each second while a new device waits for its first handshake, else 10 s. */
export function statusRefreshFor(devices: readonly StatusRow[] | undefined, now = Date.now()): number {
  const awaiting = (devices ?? []).some(
    (device) =>
      device.is_active &&
      device.public_key !== null &&
      device.latest_handshake === null &&
      now - new Date(device.created_at).getTime() < awaitingFirstHandshakeMs,
  );
  return awaiting ? firstHandshakeRefreshMs : statusRefreshMs;
}
