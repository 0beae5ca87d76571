import { connectedWindowSeconds, isConnected } from '@qw/contracts';

/**
 * Latency through the tunnel, measured at sampling time: one ICMP echo from the node to the
 * device's tunnel address (its /32), which only reaches the device through its WireGuard session.
 * A device that does not answer (asleep, firewalled, gone) gets null: nothing is estimated.
 * WireGuard keeps no per-peer packet counts, so the samples carry none.
 */

/** The average round trip of a `ping` run (iputils' `rtt …` or busybox's `round-trip …`), in ms; null without a reply. */
export function parsePingRtt(output: string): number | null {
  const match = /(?:rtt|round-trip)[^=]*=\s*([\d.]+)\/([\d.]+)\//.exec(output);
  if (!match) return null;
  const avg = Number(match[2]);
  return Number.isFinite(avg) && avg >= 0 ? Math.round(avg * 1000) / 1000 : null;
}

/** The device's tunnel IPv4 address (the /32 among its allowed IPs), or null. */
export function tunnelAddress(allowedIps: readonly string[]): string | null {
  const v4 = allowedIps.find((cidr) => /^\d+\.\d+\.\d+\.\d+\/32$/.test(cidr));
  return v4 ? v4.slice(0, -3) : null;
}

export type ProbeCandidate = { publicKey: string; allowedIps: string[]; latestHandshake: number };

/**
 * Which peers to probe this round: those with a handshake within the connected window (no other
 * can answer), at most `max`, taken round-robin from `offset` so every connected device is
 * measured in turn when there are more than `max`.
 */
export function probeTargets(
  peers: readonly ProbeCandidate[],
  nowSeconds: number,
  max: number,
  offset: number,
): { targets: Array<{ publicKey: string; address: string }>; nextOffset: number } {
  const live = peers
    .filter((p) => isConnected(p.latestHandshake, nowSeconds, connectedWindowSeconds))
    .map((p) => ({ publicKey: p.publicKey, address: tunnelAddress(p.allowedIps) }))
    .filter((p): p is { publicKey: string; address: string } => p.address !== null);
  if (live.length === 0 || max <= 0) return { targets: [], nextOffset: 0 };
  if (live.length <= max) return { targets: live, nextOffset: 0 };
  const start = offset % live.length;
  const targets = [...live.slice(start), ...live.slice(0, start)].slice(0, max);
  return { targets, nextOffset: (start + max) % live.length };
}

/** Runs `probe` over the targets, at most `concurrency` at once; a failed probe is null. */
export async function probeAll(
  targets: ReadonlyArray<{ publicKey: string; address: string }>,
  probe: (address: string) => Promise<number | null>,
  concurrency = 32,
): Promise<Map<string, number | null>> {
  const results = new Map<string, number | null>();
  let next = 0;
  const worker = async () => {
    while (next < targets.length) {
      const target = targets[next++]!;
      results.set(target.publicKey, await probe(target.address).catch(() => null));
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, targets.length) }, worker));
  return results;
}
