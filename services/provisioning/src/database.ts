import type { ColumnType, Generated, Selectable } from 'kysely';
import type {
  NodeStatus,
  OrganizationRole,
  ResolverState,
  RegionChoice,
  RegionId,
  SplitTunnelPresetId,
  SuspensionLevel,
} from '@qw/contracts';
import type { PlatformTables } from '@qw/platform/db';

type Timestamp = ColumnType<Date, Date | string | undefined, Date | string>;
type NullableTimestamp = ColumnType<Date | null, Date | string | null | undefined, Date | string | null>;

export interface NodesTable {
  id: string;
  name: string;
  region: RegionId;
  /** Where it is, as the console and /servers name it (issue #23); null for a node registered before. */
  city: ColumnType<string | null, string | null | undefined, string | null>;
  /** How many peers it takes; placement fills no node past it. */
  capacity: Generated<number>;
  /** `pending` (added in the console, its host not enrolled yet), `active`, or `retired`. */
  status: ColumnType<NodeStatus, NodeStatus | undefined, NodeStatus>;
  agent_version: ColumnType<string | null, string | null | undefined, string | null>;
  agent_started_at: NullableTimestamp;
  /** Its own resolver as the agent's latest report said (issue #25); null before any such report. */
  resolver_state: ColumnType<ResolverState | null, ResolverState | null | undefined, ResolverState | null>;
  resolver_restarts: ColumnType<number | null, number | null | undefined, number | null>;
  enrolled_at: NullableTimestamp;
  retired_at: NullableTimestamp;
  ip: string;
  ssh_user: string | null;
  ssh_port: number | null;
  endpoint: string;
  /** Null only while pending: the host makes its key at enrolment and sends the public half. */
  public_key: string | null;
  node_index: number;
  ipv4_cidr: string;
  ipv6_cidr: string;
  tags: ColumnType<string[], string[] | undefined, string[]>;
  created_at: Timestamp;
  last_seen_at: NullableTimestamp;
  /** Takes no new devices (an operator drained it); those on it move to other nodes of its region, or are held there. */
  draining: Generated<boolean>;
  /** The public addresses its tunnel traffic leaves from (issue #25), as its agent said when it registered. */
  egress: ColumnType<string[], string[] | undefined, string[]>;
}
export interface DevicesTable {
  id: string;
  user_id: string;
  org_id: string | null;
  name: string;
  platform: string;
  is_active: Generated<boolean>;
  public_key: string | null;
  private_key_sealed: string | null;
  /** The id of the key that sealed `private_key_sealed` (null: sealed before rows named their key). */
  private_key_sealed_by: ColumnType<string | null, string | null | undefined, string | null>;
  /** Its preshared key (issue #25), sealed as the private key is (AAD `psk:<id>`); null for a device made before. */
  preshared_key_sealed: ColumnType<string | null, string | null | undefined, string | null>;
  preshared_key_sealed_by: ColumnType<string | null, string | null | undefined, string | null>;
  client_keys: Generated<boolean>;
  node_id: string | null;
  ipv4: string | null;
  ipv6: string | null;
  key_created_at: NullableTimestamp;
  /** The newest WireGuard handshake telemetry saw for the device (its "connected now"). */
  latest_handshake: Generated<Date | null>;
  created_at: Timestamp;
  /**
   * Why it is off: 'owner', 'manager', 'admin', 'subscription_ended', 'organization_suspended' or
   * 'account_suspended' (its person's account, by the operator); null when active.
   */
  suspended_reason: ColumnType<string | null, string | null | undefined, string | null>;
  /** The level that holds it off (issue #20); null while active or held only by its plan or organization. */
  suspended_by: ColumnType<SuspensionLevel | null, SuspensionLevel | null | undefined, SuspensionLevel | null>;
  /** Scheduled key rotation: 30 or 90 days, null when off. */
  key_rotation_days: ColumnType<number | null, number | null | undefined, number | null>;
  next_key_rotation_at: NullableTimestamp;
  /** The region the customer chose for it (issue #23), or `auto`: nearest `country`, then the others. */
  region_choice: ColumnType<RegionChoice, RegionChoice | undefined, RegionChoice>;
  /** ISO 3166-1 alpha-2, as the customer picked it for Automatic; null when not given. */
  country: ColumnType<string | null, string | null | undefined, string | null>;
  /** When it moved to another node (new Endpoint and server key): its config must be downloaded again. Cleared by the next download. */
  config_changed_at: NullableTimestamp;
  /** A drain could not move it (no room in its region) since then; it stays where it is until there is room. */
  held_since: NullableTimestamp;
  /** Content blocking (issue #25): the categories of contracts' blocking.ts as a mask, 0 = none. */
  blocking_mask: ColumnType<number, number | undefined, number>;
  /** What its config sends into the tunnel: `all`, `except_local` or `custom` (then `custom_routes`). */
  split_tunnel: ColumnType<SplitTunnelPresetId, SplitTunnelPresetId | undefined, SplitTunnelPresetId>;
  /** Canonical CIDRs, 1–32 with `custom`, empty otherwise. */
  custom_routes: ColumnType<string[], string[] | undefined, string[]>;
}
/** Accounts the operator suspended (issue #26), from identity's events: their devices are held off. */
export interface AccountSuspensionsTable {
  user_id: string;
  suspended: boolean;
  last_event_id: string;
}
/** Enrolment tokens for servers added in the console: only the hash is kept; valid an hour and once. */
export interface NodeEnrolmentsTable {
  token_hash: string;
  node_id: string;
  created_by: string;
  created_at: Timestamp;
  expires_at: Timestamp;
  used_at: NullableTimestamp;
}
/** Each bus credential issued to a node, by its user public key; retiring the node revokes them. */
export interface NodeCredentialsTable {
  user_public_key: string;
  node_id: string;
  issued_at: Timestamp;
  revoked_at: NullableTimestamp;
}
/** The peer a moved device left on its old node, kept until the device is seen through its new node or `expires_at`. */
export interface MovedPeersTable {
  node_id: string;
  public_key: string;
  device_id: string;
  ipv4: string;
  ipv6: string;
  expires_at: Timestamp;
}
/**
 * A key a scheduled rotation replaced, still on its node with the address it had until
 * `expires_at` (the grace period); then its peer leaves the node and the address is free.
 */
export interface RetiringKeysTable {
  public_key: string;
  device_id: string;
  node_id: string;
  ipv4: string;
  ipv6: string;
  /** The preshared key that went with it, as it was sealed on the device. */
  preshared_key_sealed: ColumnType<string | null, string | null | undefined, string | null>;
  preshared_key_sealed_by: ColumnType<string | null, string | null | undefined, string | null>;
  expires_at: Timestamp;
}
/** One row, only with the test clock: how far the tests moved provisioning's time. */
export interface TestClockTable {
  id: Generated<boolean>;
  offset_seconds: ColumnType<string, number | undefined, number>;
}
/**
 * How many of an organization's devices each person holds: kept by triggers on `devices` (migration
 * 2027_08_01_100000_org_device_counts), never written by the service; a row at zero is deleted.
 */
export interface OrgDeviceCountsTable {
  org_id: string;
  user_id: string;
  n: number;
}
export interface EntitlementsTable {
  subscription_id: string;
  user_id: string | null;
  org_id: string | null;
  plan_code: string;
  status: string;
  updated_at: Timestamp;
}

/** Identity's organizations as provisioning keeps them (from identity.org.status-changed). */
export interface OrganizationsTable {
  org_id: string;
  is_active: boolean;
  plan: string | null;
  last_event_id: string;
  /** An operator holds it suspended (identity says); its members are told so, not to renew. */
  suspended_by_operator: Generated<boolean>;
}

/** Identity's members as provisioning keeps them (joined, role changed, left). */
export interface OrgMembersTable {
  org_id: string;
  user_id: string;
  role: OrganizationRole;
  /** False once they left or were removed (kept, so a late older event cannot bring them back). */
  is_member: boolean;
  last_event_id: string;
}

export interface ConfigLinksTable {
  token_hash: string;
  device_id: string;
  format: 'conf' | 'qr';
  expires_at: Timestamp;
  used_at: NullableTimestamp;
  created_at: Timestamp;
}

/** What platform operators did from the console (device actions, drains): who, what, on what, when. */
export interface OperatorActionsTable {
  id: string;
  at: Timestamp;
  actor_id: string;
  kind: string;
  target_kind: 'device' | 'node';
  target_id: string;
  details: ColumnType<Record<string, unknown>, string, string>;
}

/** The platform's tables (outbox, inbox, rate events, mail jobs) come with `PlatformTables`. */
export interface ProvisioningDatabase extends PlatformTables {
  operator_actions: OperatorActionsTable;
  account_suspensions: AccountSuspensionsTable;
  config_links: ConfigLinksTable;
  nodes: NodesTable;
  node_enrolments: NodeEnrolmentsTable;
  node_credentials: NodeCredentialsTable;
  moved_peers: MovedPeersTable;
  devices: DevicesTable;
  retiring_keys: RetiringKeysTable;
  org_device_counts: OrgDeviceCountsTable;
  test_clock: TestClockTable;
  entitlements: EntitlementsTable;
  organizations: OrganizationsTable;
  org_members: OrgMembersTable;
}

export type Device = Selectable<DevicesTable>;
export type Node = Selectable<NodesTable>;
