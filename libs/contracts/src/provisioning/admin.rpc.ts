import { Type } from 'typebox';
import { defineRpc } from '../rpc.ts';
import { EnrolmentAnswerSchema } from '../http/servers.http.ts';
import {
  AddServerBodySchema,
  AdminDeviceActionSchema,
  AdminDeviceBreakdownSchema,
  AdminDeviceSchema,
  AdminDevicesQuerySchema,
  AdminServerSchema,
  AuditCursorSchema,
} from '../http/admin.http.ts';

/**
 * The operator console's questions to provisioning (platform admins only: every handler starts
 * with `requireAdmin`). Provisioning owns devices and nodes; it asks identity for the names and
 * addresses of owners and organizations, and telemetry for what the nodes last said.
 */
const Uuid = Type.String({ format: 'uuid' });
/**
 * Owners matched by a search of their e-mail, at most this many (identity says when there are
 * more, and the page asks the operator to narrow the search): a search as wide as "example.com"
 * would otherwise ship every person's id through the bus for one page of devices.
 */
export const ownerSearchLimit = 1_000;

const AdminDevicePageSchema = Type.Object({
  rows: Type.Array(AdminDeviceSchema),
  total: Type.Integer({ minimum: 0 }),
  page: Type.Integer({ minimum: 1 }),
  per_page: Type.Integer({ minimum: 0 }),
  /** The search matched more people than are searched by owner (see `ownerSearchLimit`). */
  owners_limited: Type.Optional(Type.Boolean()),
});

/** Every device with owner, organization, node, active and connected; searched, filtered, paged. */
export const adminDevicesRpc = defineRpc(
  'provisioning.rpc.admin-devices',
  AdminDevicesQuerySchema,
  AdminDevicePageSchema,
  { forwarded: true },
);
/** The overview's Devices tile and what it is made of. `exclude_test`: test accounts' devices left out. */
export const adminDeviceCountRpc = defineRpc(
  'provisioning.rpc.admin-device-count',
  Type.Object({ exclude_test: Type.Optional(Type.Boolean()) }),
  Type.Object({
    devices: Type.Integer({ minimum: 0 }),
    active: Type.Integer({ minimum: 0 }),
    breakdown: AdminDeviceBreakdownSchema,
  }),
);
/** Spec §7 admin device action: activate, suspend or revoke_keys; audited. */
export const adminDeviceActionRpc = defineRpc(
  'provisioning.rpc.admin-device-action',
  AdminDeviceActionSchema,
  Type.Object({ device: AdminDeviceSchema }),
);
/**
 * One card per node: peers placed, the node's latest metrics within 300 s (telemetry) and peers
 * connected. `exclude_test`: the test accounts' peers counted apart (`peers_test`).
 */
export const adminServersRpc = defineRpc(
  'provisioning.rpc.admin-servers',
  Type.Object({ exclude_test: Type.Optional(Type.Boolean()) }),
  Type.Object({ servers: Type.Array(AdminServerSchema) }),
);
/** Drain a node (no new placements; its devices move to other nodes of its region, or are held) or open it again; audited. */
export const adminDrainNodeRpc = defineRpc(
  'provisioning.rpc.admin-drain-node',
  Type.Object({ node_id: Type.String({ maxLength: 64 }), draining: Type.Boolean() }),
  AdminServerSchema,
);
/** Device names by id (telemetry's console page names its rows with them); service to service. */
export const adminDeviceNamesRpc = defineRpc(
  'provisioning.rpc.admin-device-names',
  Type.Object({ device_ids: Type.Array(Uuid, { maxItems: 1000 }) }),
  Type.Object({ devices: Type.Array(Type.Object({ id: Uuid, name: Type.String() })) }),
);

/** One operator action as provisioning recorded it (device actions and drains). */
export const OperatorActionSchema = Type.Object({
  id: Uuid,
  at: Type.String({ format: 'date-time' }),
  actor_id: Uuid,
  /** The operator's address now (identity's), or null if the account is gone. */
  actor_email: Type.Union([Type.String(), Type.Null()]),
  /** device.activated, device.suspended, device.keys_revoked, node.drained, node.undrained, node.added, node.enrolment_issued, node.retired */
  kind: Type.String(),
  target_kind: Type.Union([Type.Literal('device'), Type.Literal('node')]),
  target_id: Uuid,
  details: Type.Record(Type.String(), Type.Unknown()),
});
/** The operators' fleet actions, newest first, paged (for the console's audit of operators' own actions). */
export const adminOperatorActionsRpc = defineRpc(
  'provisioning.rpc.admin-operator-actions',
  Type.Object({
    page: Type.Optional(Type.Integer({ minimum: 1, maximum: 100_000 })),
    per_page: Type.Optional(Type.Integer({ minimum: 1, maximum: 100 })),
    /** Only actions older than this (the console's merged audit pages with it; `page` then stays 1). */
    before: Type.Optional(AuditCursorSchema),
  }),
  Type.Object({
    rows: Type.Array(OperatorActionSchema),
    total: Type.Integer({ minimum: 0 }),
    page: Type.Integer({ minimum: 1 }),
    per_page: Type.Integer({ minimum: 1 }),
  }),
);

/** A one-time enrolment as provisioning issues it; the gateway adds the install command. */
export const EnrolmentTokenSchema = Type.Object({
  token: Type.String(),
  expires_at: Type.String({ format: 'date-time' }),
});
/** Add a server (pending until its host enrols) with its first enrolment token; audited. */
export const adminAddNodeRpc = defineRpc(
  'provisioning.rpc.admin-add-node',
  AddServerBodySchema,
  Type.Object({ server: AdminServerSchema, enrolment: EnrolmentTokenSchema }),
);
/** A new enrolment token for a pending server; its earlier unused tokens stop working. */
export const adminNewEnrolmentRpc = defineRpc(
  'provisioning.rpc.admin-new-enrolment',
  Type.Object({ node_id: Type.String({ maxLength: 64 }) }),
  EnrolmentTokenSchema,
);
/** Retire a server without devices: its bus credentials revoked at once, its leftover peers gone; audited. */
export const adminRetireNodeRpc = defineRpc(
  'provisioning.rpc.admin-retire-node',
  Type.Object({ node_id: Type.String({ maxLength: 64 }) }),
  AdminServerSchema,
);
/**
 * A host's enrolment (public, through the gateway): the token once, for the node's own bus user.
 * `address_key` is the gateway's keyed hash of the client's address, for the rate limit.
 */
export const enrolNodeRpc = defineRpc(
  'provisioning.rpc.enrol-node',
  Type.Object({
    token: Type.String({ minLength: 20, maxLength: 200 }),
    agent_version: Type.Optional(Type.String({ maxLength: 64 })),
    address_key: Type.String({ minLength: 1, maxLength: 64 }),
  }),
  EnrolmentAnswerSchema,
);
