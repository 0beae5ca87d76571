import { Type, type Static } from 'typebox';
import { defineRpc } from '../rpc.ts';

const Uuid = Type.String({ format: 'uuid' });

/** A device's suspension level (`SuspensionLevel` in devices.ts), or null. */
export const SuspensionLevelSchema = Type.Union([
  Type.Literal('person'),
  Type.Literal('organization'),
  Type.Literal('operator'),
  Type.Null(),
]);

/** A device's region choice (regions.ts): a region, or `auto`. */
export const RegionChoiceSchema = Type.Union([
  Type.Literal('auto'),
  Type.Literal('north-america'),
  Type.Literal('europe'),
  Type.Literal('asia'),
]);
export const RegionIdSchema = Type.Union([Type.Literal('north-america'), Type.Literal('europe'), Type.Literal('asia')]);
/** ISO 3166-1 alpha-2, for Automatic: placement starts at the region nearest it. */
export const CountrySchema = Type.String({ pattern: '^[A-Za-z]{2}$', maxLength: 2 });

/** A content-blocking category (blocking.ts). */
export const BlockingCategorySchema = Type.Union([
  Type.Literal('ads'),
  Type.Literal('trackers'),
  Type.Literal('malware'),
  Type.Literal('adult'),
  Type.Literal('gambling'),
]);
/** A split-tunnel preset (split-tunnel.ts). */
export const SplitTunnelPresetSchema = Type.Union([
  Type.Literal('all'),
  Type.Literal('except_local'),
  Type.Literal('custom'),
]);
/**
 * A device's tunnel privacy choices, as the add forms and its row set them. Each is optional: an
 * add without them takes the defaults (no blocking, all traffic), a change keeps what it leaves
 * out. `custom_routes` goes with `split_tunnel: 'custom'` only.
 */
export const DevicePrivacyFields = {
  blocking: Type.Optional(Type.Array(BlockingCategorySchema, { maxItems: 5 })),
  split_tunnel: Type.Optional(SplitTunnelPresetSchema),
  custom_routes: Type.Optional(Type.Array(Type.String({ maxLength: 100 }), { maxItems: 256 })),
};
export const DevicePrivacySchema = Type.Object(DevicePrivacyFields, { additionalProperties: false });
export type DevicePrivacyInput = Static<typeof DevicePrivacySchema>;

/** The server a device is on, as its owner sees it. */
export const DeviceServerSchema = Type.Object({
  id: Uuid,
  name: Type.String(),
  region: Type.String(),
  city: Type.Union([Type.String(), Type.Null()]),
  /** False when the node has not reported for 30 s: the device reads "Server unreachable", not "Not connected". */
  reachable: Type.Boolean(),
});

export const DeviceViewSchema = Type.Object({
  id: Uuid,
  name: Type.String(),
  platform: Type.String(),
  is_active: Type.Boolean(),
  user_id: Uuid,
  org_id: Type.Union([Uuid, Type.Null()]),
  created_at: Type.String(),
  public_key: Type.Union([Type.String(), Type.Null()]),
  addresses: Type.Array(Type.String()),
  node: Type.Union([DeviceServerSchema, Type.Null()]),
  /** The region the owner chose (issue #23), or `auto`. */
  region_choice: RegionChoiceSchema,
  country: Type.Union([Type.String(), Type.Null()]),
  /** Set when the device moved to another server: its config must be downloaded again (cleared by the download). */
  config_changed_at: Type.Union([Type.String(), Type.Null()]),
  /** Set while a drain could not move it for want of room in its region: it stays on its draining server. */
  held_since: Type.Union([Type.String(), Type.Null()]),
  key_created_at: Type.Union([Type.String(), Type.Null()]),
  /** True when the browser made the key pair: the server cannot render the config. */
  client_keys: Type.Boolean(),
  /** Scheduled key rotation: every 30 or 90 days, or null when off. */
  key_rotation_days: Type.Union([Type.Literal(30), Type.Literal(90), Type.Null()]),
  /** When the next scheduled rotation is due (null when off). */
  next_key_rotation_at: Type.Union([Type.String(), Type.Null()]),
  /** Until when the key the last scheduled rotation replaced still works (null: none does). */
  previous_key_expires_at: Type.Union([Type.String(), Type.Null()]),
  /** Who holds the device off (see `SuspensionLevel`); null while active or held only by its plan or organization. */
  suspended_by: SuspensionLevelSchema,
  /** Content blocking (Tunnel privacy): the categories its resolver blocks; empty: none. */
  blocking: Type.Array(BlockingCategorySchema),
  /** What its config sends into the tunnel, and for `custom` the routes (canonical CIDRs). */
  split_tunnel: SplitTunnelPresetSchema,
  custom_routes: Type.Array(Type.String()),
});
export type DeviceView = Static<typeof DeviceViewSchema>;

/** The node's name is not in the body: it is the `{node}` of the subject, which only that node may use. */
export const NodeRegistrationSchema = Type.Object({
  region: Type.String({ minLength: 1, maxLength: 64 }),
  endpoint: Type.String({ minLength: 3, maxLength: 255 }),
  public_key: Type.String({ minLength: 44, maxLength: 44 }),
  ip: Type.String({ maxLength: 64 }),
  ssh_user: Type.Optional(Type.String({ maxLength: 64 })),
  ssh_port: Type.Optional(Type.Integer({ minimum: 1, maximum: 65535 })),
  tags: Type.Array(Type.String({ maxLength: 32 }), { maxItems: 16 }),
  /** Where the server is, as the console and /servers name it; unsaid, the node keeps the city it had. */
  city: Type.Optional(Type.String({ minLength: 1, maxLength: 64 })),
  /** Peers it takes; unsaid, the node keeps the capacity it had (1000 for a new one). */
  capacity: Type.Optional(Type.Integer({ minimum: 1, maximum: 1_000_000 })),
  /**
   * The public addresses its tunnel traffic leaves from (issue #25: the connection check compares a
   * request's source with them); unsaid (an agent from before), none.
   */
  egress: Type.Optional(Type.Array(Type.String({ minLength: 2, maxLength: 64 }), { maxItems: 8 })),
});
export const NodeAddressingSchema = Type.Object({
  node_id: Uuid,
  ipv4_cidr: Type.String(),
  ipv6_cidr: Type.String(),
  node_ipv4: Type.String(),
  node_ipv6: Type.String(),
  dns: Type.Array(Type.String()),
});
/**
 * `preshared_key`: the peer's preshared key (issue #25), or null for a device made before them.
 * It goes only to the node asked for, in the answer to that node's own RPC (read by that node's
 * user alone), never in an event a stream keeps.
 */
export const DesiredPeerSchema = Type.Object({
  public_key: Type.String(),
  allowed_ips: Type.Array(Type.String()),
  preshared_key: Type.Optional(Type.Union([Type.String({ minLength: 44, maxLength: 44 }), Type.Null()])),
});

/** A device as its lists show it: the device, and what its node last said about it. */
export const DeviceWithStatusSchema = Type.Intersect([
  DeviceViewSchema,
  Type.Object({
    /** The latest handshake is within the connected window (and the device is active). */
    is_connected: Type.Boolean(),
    latest_handshake: Type.Union([Type.String(), Type.Null()]),
    rx_bytes: Type.Integer(),
    tx_bytes: Type.Integer(),
    /**
     * What the device downloaded and uploaded through its server in the last 24 hours (hourly
     * buckets, so 23 to 24 hours): the device's own view, the node's tx and rx.
     */
    received_bytes_24h: Type.Integer(),
    sent_bytes_24h: Type.Integer(),
  }),
]);
export type DeviceWithStatus = Static<typeof DeviceWithStatusSchema>;

export const VpnStatusSchema = Type.Union([Type.Literal('Online'), Type.Literal('Idle')]);
/** Spec §2: Devices, Connected, and VPN Status (Online if at least one is connected, else Idle). */
export const DeviceOverviewSchema = Type.Object({
  devices: Type.Integer(),
  connected: Type.Integer(),
  vpn_status: VpnStatusSchema,
});
export type DeviceOverview = Static<typeof DeviceOverviewSchema>;

/**
 * Provisioning owns the device lists with their status: it asks telemetry for the latest
 * samples itself, so the gateway, and later the business and operator views, ask one question.
 */
export const listDevicesRpc = defineRpc(
  'provisioning.rpc.list-devices',
  Type.Object({}),
  Type.Object({ devices: Type.Array(DeviceWithStatusSchema) }),
  { forwarded: true },
);
/** An organization's devices: owners and admins see all, members their own (spec §2, §7). */
export const OrgDeviceQuotaSchema = Type.Object({
  /** Spec §9: at most this many organization devices per person ('n/5'). */
  per_assignee: Type.Integer(),
  /** Organization devices each person has now, by user id (every member, for owners and admins). */
  by_assignee: Type.Record(Type.String(), Type.Integer()),
  devices: Type.Integer(),
  /** The plan's device count; null: no limit. */
  device_cap: Type.Union([Type.Integer(), Type.Null()]),
});
/**
 * The organization's device list comes in pages (issue #24): an organization may hold 1,250
 * devices (250 people, 5 each), and the whole list would pass NATS's 1 MB message limit. `page`
 * from 1, `per_page` 1 to 100 (50 if not given), newest first; `assignee_id` keeps one person's
 * devices, `q` those whose name holds it. The quota is always the whole organization's.
 */
export const orgDevicePageSizes = { default: 50, min: 1, max: 100 } as const;
export const OrgDevicesPagingFields = {
  page: Type.Optional(Type.Integer({ minimum: 1, maximum: 100_000, default: 1 })),
  per_page: Type.Optional(
    Type.Integer({
      minimum: orgDevicePageSizes.min,
      maximum: orgDevicePageSizes.max,
      default: orgDevicePageSizes.default,
    }),
  ),
  /** Only this person's devices (for a member: their own anyway, so another's id finds none). */
  assignee_id: Type.Optional(Uuid),
  /** A part of the device's name (`%` and `_` taken literally); at most 100 characters. */
  q: Type.Optional(Type.String({ maxLength: 100 })),
};
export const OrgDevicesPageSchema = Type.Object({
  /** One page of the devices the caller sees, newest first. */
  devices: Type.Array(DeviceWithStatusSchema),
  /** The organization's quota answer, for the whole organization whatever the page. */
  quota: OrgDeviceQuotaSchema,
  /** Devices the caller sees with these filters, in every page. */
  total: Type.Integer({ minimum: 0 }),
  page: Type.Integer({ minimum: 1 }),
  per_page: Type.Integer({ minimum: 1 }),
});
export type OrgDevicesPage = Static<typeof OrgDevicesPageSchema>;
export const listOrgDevicesRpc = defineRpc(
  'provisioning.rpc.org-devices',
  Type.Object({ org_id: Uuid, ...OrgDevicesPagingFields }),
  OrgDevicesPageSchema,
  { forwarded: true },
);
export const orgDeviceOverviewRpc = defineRpc(
  'provisioning.rpc.org-device-overview',
  Type.Object({ org_id: Uuid }),
  DeviceOverviewSchema,
  { forwarded: true },
);
/** Spec §5 business add device: platform linux by default; owners and admins may assign it to any member. */
export const createOrgDeviceRpc = defineRpc(
  'provisioning.rpc.org-create-device',
  Type.Object({
    org_id: Uuid,
    name: Type.String({ maxLength: 1000 }),
    platform: Type.Optional(Type.String({ maxLength: 32 })),
    assignee_id: Type.Optional(Uuid),
    public_key: Type.Optional(Type.String({ maxLength: 64 })),
    region: Type.Optional(RegionChoiceSchema),
    country: Type.Optional(CountrySchema),
    ...DevicePrivacyFields,
  }),
  Type.Object({ device: DeviceViewSchema }),
);
export const deviceOverviewRpc = defineRpc('provisioning.rpc.device-overview', Type.Object({}), DeviceOverviewSchema, {
  forwarded: true,
});
export const createDeviceRpc = defineRpc(
  'provisioning.rpc.create-device',
  Type.Object({
    name: Type.String({ maxLength: 1000 }),
    platform: Type.String({ maxLength: 32 }),
    public_key: Type.Optional(Type.String({ maxLength: 64 })),
    region: Type.Optional(RegionChoiceSchema),
    country: Type.Optional(CountrySchema),
    ...DevicePrivacyFields,
  }),
  Type.Object({ device: DeviceViewSchema }),
);
export const updateDeviceRpc = defineRpc(
  'provisioning.rpc.update-device',
  Type.Object({
    device_id: Uuid,
    name: Type.Optional(Type.String({ maxLength: 1000 })),
    is_active: Type.Optional(Type.Boolean()),
  }),
  Type.Object({ device: DeviceViewSchema }),
);
export const removeDeviceRpc = defineRpc(
  'provisioning.rpc.remove-device',
  Type.Object({ device_id: Uuid }),
  Type.Object({}),
);
export const requestKeyRpc = defineRpc(
  'provisioning.rpc.request-key',
  Type.Object({ device_id: Uuid, public_key: Type.Optional(Type.String({ maxLength: 64 })) }),
  Type.Object({ device: DeviceViewSchema, emailed: Type.Boolean() }),
);
/**
 * A device's region (issue #23): the choice is kept, and a device whose server does not fit it
 * moves (`moved`). Who may: as rename. `country` absent keeps the one the device has.
 */
export const changeDeviceRegionRpc = defineRpc(
  'provisioning.rpc.change-device-region',
  Type.Object({ device_id: Uuid, region: RegionChoiceSchema, country: Type.Optional(CountrySchema) }),
  Type.Object({ device: DeviceViewSchema, moved: Type.Boolean() }),
);
/**
 * A device's tunnel privacy (content blocking, split tunnel). Who may: as rename. The choices are
 * in its config (the DNS line names the resolver of its blocking, AllowedIPs its split), so
 * `config_changed` says its person must download the config or scan the QR code again.
 */
export const setDevicePrivacyRpc = defineRpc(
  'provisioning.rpc.set-device-privacy',
  Type.Object({ device_id: Uuid, ...DevicePrivacyFields }),
  Type.Object({ device: DeviceViewSchema, config_changed: Type.Boolean() }),
);
/** Scheduled key rotation for one device: every 30 or 90 days, or off (null). Who may: as "Request key". */
export const KeyRotationScheduleSchema = Type.Union([Type.Literal(30), Type.Literal(90), Type.Null()]);
export const setKeyRotationRpc = defineRpc(
  'provisioning.rpc.set-key-rotation',
  Type.Object({ device_id: Uuid, every_days: KeyRotationScheduleSchema }),
  Type.Object({ device: DeviceViewSchema }),
);
/**
 * Moves provisioning's test clock forward (only with PROVISIONING_TEST_CLOCK, never in
 * production) and runs what became due at once: scheduled rotations and ended grace periods.
 */
export const advanceProvisioningClockRpc = defineRpc(
  'provisioning.rpc.advance-clock',
  Type.Object({ hours: Type.Number({ minimum: 0, maximum: 87_600 }) }),
  Type.Object({ now: Type.String() }),
);
export const deviceConfigRpc = defineRpc(
  'provisioning.rpc.device-config',
  Type.Object({ device_id: Uuid }),
  Type.Object({ file_name: Type.String(), config: Type.String() }),
);
export const ConfigFormatSchema = Type.Union([Type.Literal('conf'), Type.Literal('qr')]);
/**
 * Links to open a config in a new tab (which carries no access token): one random token per
 * format, good once, for 60 seconds, and for nothing else (it is no signed token at all).
 */
export const issueConfigLinksRpc = defineRpc(
  'provisioning.rpc.issue-config-links',
  Type.Object({ device_id: Uuid }),
  Type.Object({ conf_token: Type.String(), qr_token: Type.String(), expires_in: Type.Integer() }),
);
/** Spends a config link (anonymous: the token is the whole proof). */
export const configByLinkRpc = defineRpc(
  'provisioning.rpc.config-by-link',
  Type.Object({ device_id: Uuid, token: Type.String({ minLength: 20, maxLength: 100 }), format: ConfigFormatSchema }),
  Type.Object({ file_name: Type.String(), config: Type.String() }),
);
/** For devices whose key the browser made: everything but the private key, so the page assembles the file. */
export const PeerInfoSchema = Type.Object({
  file_name: Type.String(),
  addresses: Type.Array(Type.String()),
  dns: Type.Array(Type.String()),
  server_public_key: Type.String(),
  /** The device's preshared key for its config (issue #25); null for a device made before them. */
  preshared_key: Type.Union([Type.String(), Type.Null()]),
  endpoint: Type.String(),
  /** What the config sends into the tunnel (the device's split-tunnel choice). */
  allowed_ips: Type.Array(Type.String()),
});
export const devicePeerInfoRpc = defineRpc(
  'provisioning.rpc.device-peer-info',
  Type.Object({ device_id: Uuid }),
  PeerInfoSchema,
);
/** Node agents only: `{node}` is the asking node's own name (NATS permissions see to that). */
export const registerNodeRpc = defineRpc(
  'provisioning.rpc.node.{node}.register',
  NodeRegistrationSchema,
  NodeAddressingSchema,
);
/** Paged by public key: a node's whole peer set can be larger than one NATS message (1 MB). */
export const desiredPeersRpc = defineRpc(
  'provisioning.rpc.node.{node}.desired-peers',
  Type.Object({
    after: Type.Optional(Type.String({ maxLength: 64 })),
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 5000 })),
    /** Only these peers (a change announced one with a preshared key): those still desired. */
    public_keys: Type.Optional(Type.Array(Type.String({ minLength: 44, maxLength: 44 }), { maxItems: 16 })),
  }),
  Type.Object({ peers: Type.Array(DesiredPeerSchema), next: Type.Union([Type.String(), Type.Null()]) }),
);

/**
 * A node agent's report (issue #23), right after it registers and every NODE_REPORT_SECONDS: what
 * runs there and how many peers its interface has. Provisioning counts the node as seen; one
 * silent for 30 s is unreachable (`isNodeReachable`).
 */
/**
 * The node's own resolver (issue #25) as its agent found it when reporting: `answering` (a probe
 * query to itself was answered), `starting` (runs, has not answered yet), `not_answering` (runs,
 * answered before, not now), `down` (not running; the agent starts it again), `off`
 * (NODE_RESOLVER=off). `restarts`: times the agent started it again since the agent started.
 */
export const ResolverHealthSchema = Type.Object({
  state: Type.Union([
    Type.Literal('answering'),
    Type.Literal('starting'),
    Type.Literal('not_answering'),
    Type.Literal('down'),
    Type.Literal('off'),
  ]),
  restarts: Type.Integer({ minimum: 0 }),
});
export type ResolverHealth = Static<typeof ResolverHealthSchema>;
export type ResolverState = ResolverHealth['state'];

export const NodeReportSchema = Type.Object({
  agent_version: Type.String({ minLength: 1, maxLength: 64 }),
  /** When the agent process started (its uptime is measured from it). */
  started_at: Type.String({ format: 'date-time', maxLength: 64 }),
  /** Peers on the node's interface now. */
  peers: Type.Integer({ minimum: 0 }),
  /** Absent from agents older than the node resolver. */
  resolver: Type.Optional(ResolverHealthSchema),
});
export type NodeReport = Static<typeof NodeReportSchema>;
export const reportNodeRpc = defineRpc('provisioning.rpc.node.{node}.report', NodeReportSchema, Type.Object({}));

/**
 * Read-your-writes (issue #20): a person's role in an organization as provisioning's copy of
 * identity's events has it now (null: not a member there). The gateway asks it after identity
 * answered a change of a membership, and answers only once provisioning acts on the change. For
 * the person concerned, or a member of the organization; anyone else gets "Organization not found."
 */
export const copiedMembershipRpc = defineRpc(
  'provisioning.rpc.org-membership',
  Type.Object({ org_id: Uuid, user_id: Uuid }),
  Type.Object({
    role: Type.Union([Type.Literal('owner'), Type.Literal('admin'), Type.Literal('member'), Type.Null()]),
  }),
);
