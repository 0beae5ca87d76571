import { latestTelemetryRpc } from '@qw/contracts';
import type { RpcClient } from '@qw/platform/bus';

/** What a device list shows of telemetry's figures: the latest counters and the last 24 hours' sums. */
export type DeviceTraffic = { rx_bytes: number; tx_bytes: number; rx_bytes_24h: number; tx_bytes_24h: number };

/**
 * How old telemetry's answer may be when a list shows it. The figures themselves move only when
 * a node's sample lands (every 10 s), so a second adds little to their age; connected and the
 * latest handshake never come from here (they are the device row's, read with the list).
 */
export const trafficMaxAgeMs = 1_000;

type Entry = { askedAt: number; traffic: Promise<DeviceTraffic | undefined> };

/**
 * Telemetry's traffic figures per device, each kept for at most `trafficMaxAgeMs` from when it
 * was asked (issue #24): a list read again within the second (the Devices page refreshing every
 * second for a new device, several tabs, many requests at once) asks telemetry once, not once per
 * request. Only the devices without a fresh answer are asked, in one request; requests arriving
 * while it is asked share its answer. A failed question is forgotten at once (the list fails as
 * before, and the next one asks again). A device telemetry has never heard of is remembered as
 * such, for the same second.
 */
export class DeviceTrafficCache {
  private readonly entries = new Map<string, Entry>();
  private readonly limit: number;
  private readonly maxAgeMs: number;
  private readonly now: () => number;

  constructor(
    private readonly ask: (deviceIds: string[]) => Promise<Array<DeviceTraffic & { device_id: string }>>,
    options: { size?: number; maxAgeMs?: number; now?: () => number } = {},
  ) {
    this.limit = options.size ?? 50_000;
    this.maxAgeMs = options.maxAgeMs ?? trafficMaxAgeMs;
    this.now = options.now ?? Date.now;
  }

  /** The traffic of each device telemetry knows, by id. */
  async of(deviceIds: readonly string[]): Promise<Map<string, DeviceTraffic>> {
    if (deviceIds.length === 0) return new Map();
    const now = this.now();
    const answers: Array<Promise<DeviceTraffic | undefined>> = [];
    const missing = new Map<string, number[]>();
    for (const [index, id] of deviceIds.entries()) {
      const found = this.entries.get(id);
      if (found && now - found.askedAt < this.maxAgeMs) answers.push(found.traffic);
      else {
        answers.push(Promise.resolve(undefined));
        missing.set(id, [...(missing.get(id) ?? []), index]);
      }
    }
    if (missing.size > 0) {
      const asked = this.ask([...missing.keys()]).then((rows) => new Map(rows.map((row) => [row.device_id, row])));
      for (const [id, indexes] of missing) {
        const entry: Entry = { askedAt: now, traffic: asked.then((rows) => rows.get(id)) };
        entry.traffic.catch(() => {
          if (this.entries.get(id) === entry) this.entries.delete(id);
        });
        // Map order is the order of asking: the oldest go first when the map is full.
        this.entries.delete(id);
        this.entries.set(id, entry);
        for (const index of indexes) answers[index] = entry.traffic;
      }
      while (this.entries.size > this.limit) {
        const oldest = this.entries.keys().next().value;
        if (oldest === undefined) break;
        this.entries.delete(oldest);
      }
    }
    const traffic = await Promise.all(answers);
    const byId = new Map<string, DeviceTraffic>();
    for (const [index, id] of deviceIds.entries()) {
      const found = traffic[index];
      if (found)
        byId.set(id, {
          rx_bytes: found.rx_bytes,
          tx_bytes: found.tx_bytes,
          rx_bytes_24h: found.rx_bytes_24h,
          tx_bytes_24h: found.tx_bytes_24h,
        });
    }
    return byId;
  }

  /** Answers remembered now. */
  get size(): number {
    return this.entries.size;
  }
}

const caches = new WeakMap<RpcClient, DeviceTrafficCache>();

/** The cache of the process's bus client (each service instance has its own, as it has its own client). */
export function deviceTrafficFor(rpc: RpcClient): DeviceTrafficCache {
  let cache = caches.get(rpc);
  if (!cache) {
    cache = new DeviceTrafficCache(
      async (deviceIds) => (await rpc.request(latestTelemetryRpc, { device_ids: deviceIds })).devices,
    );
    caches.set(rpc, cache);
  }
  return cache;
}
