import { Type, type Static, type TSchema } from 'typebox';
import { RegionIdSchema, ResolverHealthSchema, SuspensionLevelSchema } from '../provisioning/provisioning.rpc.ts';
import { defineRoute } from './route.ts';

/**
 * The operator console's HTTP API (spec §2 Admin area, §7 `POST /api/admin-device`). Every route
 * is for platform admins only (`access: 'admin'`): the gateway decides from the verified session
 * alone and refuses anyone else with 401/403 whatever headers or body say (`x-admin-email` is
 * ignored), and the services that answer check the caller assertion's admin flag again.
 * Lists are paged on the server: `page` from 1, `per_page` 10 to 100 (25 if not given).
 */
const tags = ['admin'];
const Uuid = Type.String({ format: 'uuid' });
const When = Type.String({ format: 'date-time' });
const NullableWhen = Type.Union([When, Type.Null()]);
const Count = Type.Integer({ minimum: 0 });
const Bytes = Type.Integer({ minimum: 0 });
/** Null where the node cannot measure it (shown as '—' with a reason, never made up). */
const Measured = <T extends TSchema>(schema: T) => Type.Union([schema, Type.Null()]);

export const adminPageSizes = { default: 25, min: 10, max: 100 } as const;
const paging = {
  page: Type.Optional(Type.Integer({ minimum: 1, maximum: 100_000, default: 1 })),
  per_page: Type.Optional(
    Type.Integer({ minimum: adminPageSizes.min, maximum: adminPageSizes.max, default: adminPageSizes.default }),
  ),
  dir: Type.Optional(Type.Union([Type.Literal('asc'), Type.Literal('desc')])),
};
/** Free-text search: a part of an e-mail, a name; at most 100 characters. */
const Search = Type.Optional(Type.String({ maxLength: 100 }));
const page = <T extends TSchema>(row: T) =>
  Type.Object({ rows: Type.Array(row), total: Count, page: Type.Integer({ minimum: 1 }), per_page: Count });

// Overview ------------------------------------------------------------------------------------

/** One hour of the last 24 (1440 minutes, spec §9), oldest first, hours without traffic as 0. */
export const TrafficHourSchema = Type.Object({ hour: When, rx_bytes: Bytes, tx_bytes: Bytes });
/**
 * What the Devices tile's figure is made of, so it reconciles with the Servers page: every device is
 * exactly one of placed (active with a key: a peer on its node), suspended, or active without a key
 * (its keys revoked, waiting for "Request key"). `peers_retiring` are the previous keys of scheduled
 * rotations still on their nodes for the grace period: the Servers page counts them as peers too.
 */
export const AdminDeviceBreakdownSchema = Type.Object({
  placed: Count,
  suspended: Count,
  without_key: Count,
  peers_retiring: Count,
});
export type AdminDeviceBreakdown = Static<typeof AdminDeviceBreakdownSchema>;
export const AdminOverviewSchema = Type.Object({
  users: Count,
  organizations: Count,
  /** Every device, suspended and keyless ones included. */
  devices: Count,
  devices_breakdown: AdminDeviceBreakdownSchema,
  /** Devices connected now (latest handshake within the connected window). */
  active_devices: Count,
  /**
   * The fleet's traffic per hour; with `exclude_test`, less the hours of test accounts' devices
   * (telemetry's per-device hours of the last day, the same bytes the totals were made of).
   */
  traffic: Type.Array(TrafficHourSchema, { minItems: 24, maxItems: 24 }),
});
export type AdminOverview = Static<typeof AdminOverviewSchema>;

/**
 * Issue #26: `exclude_test=true` leaves test accounts out of a figure or list (the console's
 * "Hide test accounts"): their people, their devices and their devices' traffic.
 */
export const ExcludeTestSchema = Type.Optional(Type.Boolean({ default: false }));
export const AdminOverviewQuerySchema = Type.Object({ exclude_test: ExcludeTestSchema });

export const adminOverviewRoute = defineRoute({
  operationId: 'adminOverview',
  method: 'GET',
  url: '/api/admin/overview',
  access: 'admin',
  tags,
  summary: 'Spec §2 Overview: users, organizations, devices and active devices, and the last 24 hours of traffic',
  querystring: AdminOverviewQuerySchema,
  response: { 200: AdminOverviewSchema },
});

// Accounts --------------------------------------------------------------------------------------

export const AdminUserSchema = Type.Object({
  id: Uuid,
  email: Type.String(),
  full_name: Type.Union([Type.String(), Type.Null()]),
  /** Spec §3 profiles.account_type: admin, business or other. */
  account_type: Type.String(),
  role: Type.String(),
  is_admin: Type.Boolean(),
  email_verified: Type.Boolean(),
  /** The personal plan that entitles them now (billing), or null. */
  plan: Type.Union([Type.String(), Type.Null()]),
  organizations: Count,
  /** A test account (issue #26). */
  is_test: Type.Boolean(),
  created_at: When,
});
export type AdminUser = Static<typeof AdminUserSchema>;
export const AdminUsersQuerySchema = Type.Object({
  q: Search,
  sort: Type.Optional(
    Type.Union([Type.Literal('email'), Type.Literal('full_name'), Type.Literal('created_at')], {
      default: 'created_at',
    }),
  ),
  exclude_test: ExcludeTestSchema,
  ...paging,
});
export const adminUsersRoute = defineRoute({
  operationId: 'adminUsers',
  method: 'GET',
  url: '/api/admin/users',
  access: 'admin',
  tags,
  summary: 'Spec §2 Accounts: users (email, name, type, plan, created), searched, sorted and paged',
  querystring: AdminUsersQuerySchema,
  response: { 200: page(AdminUserSchema) },
});

export const AdminOrganizationSchema = Type.Object({
  id: Uuid,
  name: Type.String(),
  plan: Type.Union([Type.String(), Type.Null()]),
  members: Count,
  /** Spec §2: Active or Suspended. */
  status: Type.Union([Type.Literal('Active'), Type.Literal('Suspended')]),
  /** Suspended by an operator (not by billing): only an operator reactivates it. */
  suspended_by_operator: Type.Boolean(),
  /** What the operator wrote when suspending it (its members read it); null otherwise. */
  suspension_reason: Type.Union([Type.String(), Type.Null()]),
  created_at: When,
});
export type AdminOrganization = Static<typeof AdminOrganizationSchema>;
export const AdminOrganizationsQuerySchema = Type.Object({
  q: Search,
  status: Type.Optional(Type.Union([Type.Literal('Active'), Type.Literal('Suspended')])),
  sort: Type.Optional(
    Type.Union([Type.Literal('name'), Type.Literal('created_at'), Type.Literal('members')], { default: 'created_at' }),
  ),
  exclude_test: ExcludeTestSchema,
  ...paging,
});
export const adminOrganizationsRoute = defineRoute({
  operationId: 'adminOrganizations',
  method: 'GET',
  url: '/api/admin/organizations',
  access: 'admin',
  tags,
  summary: 'Spec §2 Accounts: organizations (name, plan, members, Active or Suspended), searched, sorted and paged',
  querystring: AdminOrganizationsQuerySchema,
  response: { 200: page(AdminOrganizationSchema) },
});

const OrgParams = Type.Object({ id: Type.String({ maxLength: 64 }) });
/** Issue #26: the reason, in words the organization's members read on their Account page. */
export const suspensionReasonMaxLength = 500;
export const SuspendOrganizationBodySchema = Type.Object({
  reason: Type.String({ minLength: 1, maxLength: suspensionReasonMaxLength }),
});
export const suspendOrganizationRoute = defineRoute({
  operationId: 'suspendOrganization',
  method: 'POST',
  url: '/api/admin/organizations/:id/suspend',
  access: 'admin',
  tags,
  summary: 'Suspend an organization (its devices stop) whatever its plan, saying why (its members read it); audited',
  params: OrgParams,
  body: SuspendOrganizationBodySchema,
  response: { 200: AdminOrganizationSchema },
});
export const reactivateOrganizationRoute = defineRoute({
  operationId: 'reactivateOrganization',
  method: 'POST',
  url: '/api/admin/organizations/:id/reactivate',
  access: 'admin',
  tags,
  summary: 'Lift an operator suspension (Active again if its plan entitles it); audited',
  params: OrgParams,
  response: { 200: AdminOrganizationSchema },
});

/** Spec §3 admin_emails. */
export const AdminEmailSchema = Type.Object({
  email: Type.String(),
  is_admin: Type.Boolean(),
  role: Type.Union([Type.String(), Type.Null()]),
  /** Set through ADMIN_EMAILS (configuration): not removable here. */
  from_config: Type.Boolean(),
  added_at: When,
});
export type AdminEmail = Static<typeof AdminEmailSchema>;
export const adminEmailsRoute = defineRoute({
  operationId: 'adminEmails',
  method: 'GET',
  url: '/api/admin/admin-emails',
  access: 'admin',
  tags,
  summary: 'The admin email list',
  response: { 200: Type.Object({ emails: Type.Array(AdminEmailSchema) }) },
});
export const addAdminEmailRoute = defineRoute({
  operationId: 'addAdminEmail',
  method: 'POST',
  url: '/api/admin/admin-emails',
  access: 'admin',
  tags,
  summary: 'Add an address to the admin list (it gains admin once verified); audited',
  body: Type.Object({ email: Type.String({ maxLength: 254 }) }, { additionalProperties: false }),
  response: { 201: AdminEmailSchema },
});
export const removeAdminEmailRoute = defineRoute({
  operationId: 'removeAdminEmail',
  method: 'DELETE',
  url: '/api/admin/admin-emails/:email',
  access: 'admin',
  tags,
  summary: 'Remove an address from the admin list (never your own, never the last one); audited',
  params: Type.Object({ email: Type.String({ maxLength: 254 }) }),
  response: { 204: Type.Null() },
});

export const AdminAuditEntrySchema = Type.Object({
  id: Uuid,
  at: When,
  actor_id: Uuid,
  /** The acting admin's address (identity's: a snapshot at the time; provisioning's: as it is now). */
  actor_email: Type.String(),
  /** admin_email.added, admin_email.removed, organization.suspended, organization.reactivated, device.activated, device.suspended, device.keys_revoked, node.drained, node.undrained */
  kind: Type.String(),
  target: Type.String(),
  details: Type.Record(Type.String(), Type.Unknown()),
});
export type AdminAuditEntry = Static<typeof AdminAuditEntrySchema>;
/**
 * Where a page of the merged audit starts: entries strictly older than this one (its time to the
 * millisecond and its id). Both sources order by the same pair, so pages never skip or repeat.
 */
export const AuditCursorSchema = Type.Object({ at: When, id: Uuid });
export type AuditCursor = Static<typeof AuditCursorSchema>;
/** The cursor as the query string carries it: `{at}_{id}`, e.g. `2026-11-23T17:00:00.123Z_0193…`. */
export const auditCursorPattern =
  '^\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}:\\d{2}\\.\\d{3}Z_[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$';
export const adminAuditRoute = defineRoute({
  operationId: 'adminAudit',
  method: 'GET',
  url: '/api/admin/audit',
  access: 'admin',
  tags,
  summary:
    "The operators' own actions, newest first: identity's (admin list, organizations) and provisioning's (devices, nodes) in one list",
  querystring: Type.Object({
    per_page: paging.per_page,
    /** `next` of the page before; absent for the newest entries. */
    before: Type.Optional(Type.String({ pattern: auditCursorPattern, maxLength: 80 })),
  }),
  response: {
    200: Type.Object({
      rows: Type.Array(AdminAuditEntrySchema),
      /** Entries in both sources together. */
      total: Count,
      per_page: Count,
      /** The `before` of the next (older) page, or null on the last one. */
      next: Type.Union([Type.String(), Type.Null()]),
    }),
  },
});

// Devices ---------------------------------------------------------------------------------------

export const AdminDeviceSchema = Type.Object({
  id: Uuid,
  name: Type.String(),
  platform: Type.String(),
  is_active: Type.Boolean(),
  is_connected: Type.Boolean(),
  owner: Type.Object({ id: Uuid, email: Type.String(), full_name: Type.Union([Type.String(), Type.Null()]) }),
  organization: Type.Union([Type.Object({ id: Uuid, name: Type.String() }), Type.Null()]),
  node: Type.Union([Type.Object({ id: Uuid, name: Type.String() }), Type.Null()]),
  /** False after revoke_keys, until its person asks for a new key. */
  has_keys: Type.Boolean(),
  /** Who holds it off: 'person', 'organization', 'operator', or null (active, or held by its plan or organization). */
  suspended_by: SuspensionLevelSchema,
  latest_handshake: NullableWhen,
  created_at: When,
});
export type AdminDevice = Static<typeof AdminDeviceSchema>;
export const AdminDevicesQuerySchema = Type.Object({
  /** A part of the device's name or its owner's e-mail. */
  q: Search,
  node: Type.Optional(Uuid),
  org: Type.Optional(Uuid),
  connected: Type.Optional(Type.Boolean()),
  active: Type.Optional(Type.Boolean()),
  sort: Type.Optional(Type.Union([Type.Literal('name'), Type.Literal('created_at')], { default: 'created_at' })),
  exclude_test: ExcludeTestSchema,
  ...paging,
});
export const adminDevicesRoute = defineRoute({
  operationId: 'adminDevices',
  method: 'GET',
  url: '/api/admin/devices',
  access: 'admin',
  tags,
  summary:
    'Spec §2 Devices: every device with owner, organization, node, active and connected; searched, filtered, paged',
  querystring: AdminDevicesQuerySchema,
  response: {
    200: Type.Object({
      ...page(AdminDeviceSchema).properties,
      /** The search matched more people than are searched by owner: the page says to narrow it. */
      owners_limited: Type.Optional(Type.Boolean()),
    }),
  },
});

/** Spec §7: `{action, deviceId}`; the spec's `x-admin-email` header is ignored (admin comes from the session). */
export const AdminDeviceActionSchema = Type.Object(
  {
    action: Type.Union([Type.Literal('activate'), Type.Literal('suspend'), Type.Literal('revoke_keys')]),
    deviceId: Type.String({ maxLength: 64 }),
  },
  { additionalProperties: false },
);
export const adminDeviceActionRoute = defineRoute({
  operationId: 'adminDeviceAction',
  method: 'POST',
  url: '/api/admin-device',
  access: 'admin',
  tags,
  summary: 'Spec §7 admin device action: activate, suspend or revoke_keys (the peer leaves its node at once); audited',
  body: AdminDeviceActionSchema,
  response: { 200: Type.Object({ ok: Type.Literal(true), device: AdminDeviceSchema }) },
});

// Telemetry -------------------------------------------------------------------------------------

/** Spec §3 device_latest_telemetry, as the console shows it. */
export const AdminTelemetryRowSchema = Type.Object({
  device_id: Uuid,
  device_name: Type.String(),
  node: Type.Union([Type.Object({ id: Uuid, name: Type.String() }), Type.Null()]),
  ts: When,
  rx_packets: Measured(Type.Integer({ minimum: 0 })),
  tx_packets: Measured(Type.Integer({ minimum: 0 })),
  rx_bytes: Bytes,
  tx_bytes: Bytes,
  latency_ms: Measured(Type.Number({ minimum: 0 })),
  /** Masked: IPv4 to its /24, IPv6 to its /48. */
  endpoint: Type.Union([Type.String(), Type.Null()]),
  is_connected: Type.Boolean(),
});
export const AdminNodeSummarySchema = Type.Object({
  node: Type.Object({ id: Uuid, name: Type.String() }),
  devices: Count,
  connected: Count,
  rx_bytes: Bytes,
  tx_bytes: Bytes,
  /** Median latency of the node's connected devices, when measured. */
  latency_ms: Measured(Type.Number({ minimum: 0 })),
});
export const AdminTelemetryQuerySchema = Type.Object({
  node: Type.Optional(Uuid),
  exclude_test: ExcludeTestSchema,
  connected: Type.Optional(Type.Boolean()),
  sort: Type.Optional(
    Type.Union([Type.Literal('ts'), Type.Literal('rx_bytes'), Type.Literal('tx_bytes'), Type.Literal('latency_ms')], {
      default: 'ts',
    }),
  ),
  ...paging,
});
export const adminTelemetryRoute = defineRoute({
  operationId: 'adminTelemetry',
  method: 'GET',
  url: '/api/admin/telemetry',
  access: 'admin',
  tags,
  summary: 'Spec §2 Telemetry: the latest row per device, paged and sortable, with a summary per node',
  querystring: AdminTelemetryQuerySchema,
  response: {
    200: Type.Object({
      ...page(AdminTelemetryRowSchema).properties,
      nodes: Type.Array(AdminNodeSummarySchema),
    }),
  },
});

// Servers ---------------------------------------------------------------------------------------

/** Spec §3 vps_metrics: the latest within 300 s, or null ('No recent metrics.'). */
export const ServerMetricsSchema = Type.Object({
  ts: When,
  cpu: Type.Number(),
  mem_used: Bytes,
  mem_total: Bytes,
  disk_used: Bytes,
  disk_total: Bytes,
  load1: Type.Number(),
  load5: Type.Number(),
  load15: Type.Number(),
});
/** Spec §3 vps_hosts, with what the console shows on its card, and the fleet's facts (issue #23). */
export const AdminServerSchema = Type.Object({
  id: Uuid,
  name: Type.String(),
  ip: Type.String(),
  ssh_user: Type.Union([Type.String(), Type.Null()]),
  ssh_port: Type.Union([Type.Integer(), Type.Null()]),
  region: Type.String(),
  city: Type.Union([Type.String(), Type.Null()]),
  /** host:port devices connect to. */
  endpoint: Type.String(),
  tags: Type.Array(Type.String()),
  /** `pending` (added, its host not enrolled yet), `active`, `retired`. */
  status: Type.Union([Type.Literal('pending'), Type.Literal('active'), Type.Literal('retired')]),
  /** Peers it takes at most; placement fills no node past it. */
  capacity: Count,
  /** Reported within the last 30 s (false for a pending or retired node). */
  reachable: Type.Boolean(),
  /** Peers placed against capacity: under half low, under 80 % medium, else high. */
  load: Type.Union([Type.Literal('low'), Type.Literal('medium'), Type.Literal('high')]),
  /** Takes no new devices; its devices are moved to other nodes of its region (or held). */
  draining: Type.Boolean(),
  /** Active devices with a key placed here. */
  peers_placed: Count,
  /** Previous keys of scheduled rotations, still on this node for their grace period. */
  peers_retiring: Count,
  /** Peers of devices moved away, kept until the device is seen through its new node. */
  peers_moved: Count,
  /** Devices a drain could not move for want of room in the region. */
  devices_held: Count,
  peers_connected: Count,
  /**
   * With `exclude_test` (issue #26): the test accounts' peers on this node (their placed devices and
   * retiring keys), left out of the figures above, which then count customers only; 0 otherwise.
   * What the node carries is placed + retiring + test + moved either way.
   */
  peers_test: Count,
  last_seen_at: NullableWhen,
  /** What its node agent said of itself at its last registration. */
  agent_version: Type.Union([Type.String(), Type.Null()]),
  /** When its agent started (uptime is now minus this). */
  agent_started_at: NullableWhen,
  /** Its own resolver (issue #25) at the agent's latest report; null when its agent never said. */
  resolver: Type.Union([ResolverHealthSchema, Type.Null()]),
  metrics: Type.Union([ServerMetricsSchema, Type.Null()]),
});
export type AdminServer = Static<typeof AdminServerSchema>;
export const AdminServersQuerySchema = Type.Object({ exclude_test: ExcludeTestSchema });
export const adminServersRoute = defineRoute({
  operationId: 'adminServers',
  method: 'GET',
  url: '/api/admin/servers',
  access: 'admin',
  tags,
  summary: 'Spec §2 Servers: one card per node with its latest metrics within 300 s, peers placed and connected',
  querystring: AdminServersQuerySchema,
  response: { 200: Type.Object({ servers: Type.Array(AdminServerSchema) }) },
});
/** One bucket of a server's history: means over the bucket, rates from its counters; null where it sent nothing. */
export const ServerHistoryBucketSchema = Type.Object({
  /** Start of the bucket. */
  at: When,
  cpu: Measured(Type.Number({ minimum: 0 })),
  load1: Measured(Type.Number({ minimum: 0 })),
  /** Memory used, per cent of the total. */
  memory: Measured(Type.Number({ minimum: 0 })),
  /** Bytes per second through its WireGuard interface, received and sent. */
  rx_rate: Measured(Type.Number({ minimum: 0 })),
  tx_rate: Measured(Type.Number({ minimum: 0 })),
  /** The most peers on its interface during the bucket. */
  peers: Measured(Count),
});
/** The last 24 hours of one server's host metrics in 5-minute buckets, oldest first (issue #26). */
export const ServerHistorySchema = Type.Object({
  node_id: Uuid,
  from: When,
  to: When,
  bucket_seconds: Count,
  buckets: Type.Array(ServerHistoryBucketSchema),
  /** Share of the buckets in which its agent sent host metrics (0–1): how much of the day it was up and reporting. */
  reported_share: Type.Number({ minimum: 0, maximum: 1 }),
});
export const serverHistoryRoute = defineRoute({
  operationId: 'serverHistory',
  method: 'GET',
  url: '/api/admin/servers/:id/history',
  access: 'admin',
  tags,
  summary:
    "A server's last 24 hours: CPU, load, memory, traffic and peers in 5-minute buckets, and how much of it the server reported",
  params: Type.Object({ id: Type.String({ maxLength: 64 }) }),
  response: { 200: ServerHistorySchema },
});
export const drainServerRoute = defineRoute({
  operationId: 'drainServer',
  method: 'POST',
  url: '/api/admin/servers/:id/drain',
  access: 'admin',
  tags,
  summary: 'Drain a node (no new placements; its devices move to other nodes of its region) or open it again; audited',
  params: Type.Object({ id: Type.String({ maxLength: 64 }) }),
  body: Type.Object({ draining: Type.Boolean() }, { additionalProperties: false }),
  response: { 200: AdminServerSchema },
});

/** A one-time enrolment: the token is shown once; only its hash is kept. */
export const NodeEnrolmentSchema = Type.Object({
  token: Type.String(),
  expires_at: When,
  /** The one line an operator runs on the host (as root). */
  install_command: Type.String(),
});
export const AddServerBodySchema = Type.Object(
  {
    name: Type.String({ minLength: 1, maxLength: 40, pattern: '^[a-z0-9][a-z0-9-]*$' }),
    region: RegionIdSchema,
    city: Type.String({ minLength: 1, maxLength: 80 }),
    /** host:port (or [v6]:port) devices connect to. */
    endpoint: Type.String({ minLength: 3, maxLength: 255 }),
    tags: Type.Array(Type.String({ minLength: 1, maxLength: 32, pattern: '^[a-z0-9][a-z0-9-]*$' }), { maxItems: 16 }),
    capacity: Type.Integer({ minimum: 1, maximum: 1_000_000 }),
    ssh_user: Type.Optional(Type.String({ minLength: 1, maxLength: 64 })),
    ssh_port: Type.Optional(Type.Integer({ minimum: 1, maximum: 65535 })),
  },
  { additionalProperties: false },
);
export const addServerRoute = defineRoute({
  operationId: 'addServer',
  method: 'POST',
  url: '/api/admin/servers',
  access: 'admin',
  tags,
  summary: 'Add a server: it waits for its host, which enrols once with the token answered here (valid an hour)',
  body: AddServerBodySchema,
  response: { 201: Type.Object({ server: AdminServerSchema, enrolment: NodeEnrolmentSchema }) },
});
export const newEnrolmentRoute = defineRoute({
  operationId: 'newServerEnrolment',
  method: 'POST',
  url: '/api/admin/servers/:id/enrolment',
  access: 'admin',
  tags,
  summary: 'A new one-time enrolment token for a pending server (the earlier ones stop working)',
  params: Type.Object({ id: Type.String({ maxLength: 64 }) }),
  response: { 200: NodeEnrolmentSchema },
});
export const retireServerRoute = defineRoute({
  operationId: 'retireServer',
  method: 'POST',
  url: '/api/admin/servers/:id/retire',
  access: 'admin',
  tags,
  summary:
    'Retire a server: its bus credentials are revoked at once and its peers leave it; refused while devices are on it',
  params: Type.Object({ id: Type.String({ maxLength: 64 }) }),
  response: { 200: AdminServerSchema },
});

/** Accounts: people, organizations, the admin email list and the audit of changes to them. */
export const adminAccountRoutes = [
  adminUsersRoute,
  adminOrganizationsRoute,
  suspendOrganizationRoute,
  reactivateOrganizationRoute,
  adminEmailsRoute,
  addAdminEmailRoute,
  removeAdminEmailRoute,
  adminAuditRoute,
];

/** The fleet: overview, devices and their actions, telemetry and servers. */
export const adminFleetRoutes = [
  adminOverviewRoute,
  adminDevicesRoute,
  adminDeviceActionRoute,
  adminTelemetryRoute,
  adminServersRoute,
  serverHistoryRoute,
  drainServerRoute,
];

/** The fleet's lifecycle (issue #23): add a server with its enrolment, a new token, retire. */
export const adminServerLifecycleRoutes = [addServerRoute, newEnrolmentRoute, retireServerRoute];

export const adminRoutes = [...adminFleetRoutes, ...adminAccountRoutes];
