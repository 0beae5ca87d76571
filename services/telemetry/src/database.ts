import type { ColumnType, Selectable } from 'kysely';
import type { PlatformTables } from '@qw/platform/db';

type Timestamp = ColumnType<Date, Date | string, Date | string>;
/** bigint columns come back from pg as strings. */
type BigCount = ColumnType<string, number | bigint | string, number | bigint | string>;

/** Which device (and node) a public key belongs to, from provisioning's events. */
export interface DeviceKeysTable {
  public_key: string;
  device_id: string;
  user_id: string;
  org_id: string | null;
  node_id: string | null;
}

/**
 * A first handshake a node saw before telemetry knew the key on that node (its device event not
 * read yet): kept a few minutes for the key (`samples/handshake-changes.ts`).
 */
export interface EarlyHandshakesTable {
  node_id: string;
  public_key: string;
  latest_handshake: Timestamp;
  received_at: ColumnType<Date, Date | string | undefined, Date | string>;
}

/** The outbox number of the newest device event applied to each device's key (mapKey). */
export interface DeviceKeyVersionsTable {
  device_id: string;
  outbox_sequence: ColumnType<string, string | number, string | number>;
  changed_at: ColumnType<Date, Date | string | undefined, Date | string>;
}

/** The latest sample per device, overwritten each time: there is no per-device history. */
export interface DeviceLatestTelemetryTable {
  device_id: string;
  node_id: string;
  ts: Timestamp;
  rx_packets: BigCount | null;
  tx_packets: BigCount | null;
  rx_bytes: BigCount;
  tx_bytes: BigCount;
  latency_ms: number | null;
  latest_handshake: ColumnType<Date | null, Date | string | null, Date | string | null>;
  endpoint: string | null;
  /**
   * The hour under way of the device (its latest sample's hour) and the bytes moved in it so far:
   * moved to `device_traffic_hours` when a sample of a later hour comes (one row written per sample).
   */
  hour: ColumnType<Date | null, Date | string | null | undefined, Date | string | null>;
  hour_rx_bytes: ColumnType<string, number | bigint | string | undefined, number | bigint | string>;
  hour_tx_bytes: ColumnType<string, number | bigint | string | undefined, number | bigint | string>;
}

/** Whether a device is on (not suspended), as provisioning's newest event about it said. */
export interface DeviceActivityTable {
  device_id: string;
  is_active: boolean;
  changed_at: Timestamp;
}

/**
 * A device's bytes in one finished hour (node's view: rx from the device, tx to it); kept 24 hours,
 * then deleted. The hour under way is in the device's latest row.
 */
export interface DeviceTrafficHoursTable {
  device_id: string;
  hour: Timestamp;
  rx_bytes: BigCount;
  tx_bytes: BigCount;
}

/** Traffic per hour for the whole service, with no device column (no-logs). */
export interface TelemetryTable {
  ts: Timestamp;
  rx_bytes: BigCount;
  tx_bytes: BigCount;
}

export interface VpsMetricsTable {
  host_id: string;
  ts: Timestamp;
  cpu: number;
  mem_used: BigCount;
  mem_total: BigCount;
  disk_used: BigCount;
  disk_total: BigCount;
  load1: number;
  load5: number;
  load15: number;
  /** The WireGuard interface's byte counters and peer count at the sample (null from older agents). */
  net_rx_bytes: ColumnType<string | null, number | bigint | string | null | undefined, number | bigint | string | null>;
  net_tx_bytes: ColumnType<string | null, number | bigint | string | null | undefined, number | bigint | string | null>;
  peers: ColumnType<number | null, number | null | undefined, number | null>;
}

/** The registered nodes' names: samples name their node, stored rows name its id. */
export interface NodesTable {
  id: string;
  name: string;
}

/** The platform's tables (outbox, inbox, rate events, mail jobs) come with `PlatformTables`. */
export interface TelemetryDatabase extends PlatformTables {
  device_keys: DeviceKeysTable;
  early_handshakes: EarlyHandshakesTable;
  device_key_versions: DeviceKeyVersionsTable;
  device_latest_telemetry: DeviceLatestTelemetryTable;
  device_activity: DeviceActivityTable;
  device_traffic_hours: DeviceTrafficHoursTable;
  telemetry: TelemetryTable;
  vps_metrics: VpsMetricsTable;
  nodes: NodesTable;
}

export type DeviceLatestTelemetry = Selectable<DeviceLatestTelemetryTable>;
