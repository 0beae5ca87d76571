import { Type } from 'typebox';
import { defineEvent } from '../envelope.ts';

const Uuid = Type.String({ format: 'uuid' });
const NullableUuid = Type.Union([Uuid, Type.Null()]);
/** Public keys and addresses only: a private key never travels on the bus. */
const Peer = {
  deviceId: Uuid,
  nodeId: Uuid,
  publicKey: Type.String({ minLength: 44, maxLength: 44 }),
  allowedIps: Type.Array(Type.String(), { minItems: 1 }),
};
const Owner = {
  userId: Uuid,
  orgId: NullableUuid,
  /** Who made the change (for the audit log); null: the system (a plan that ended). Absent in older events. */
  actorId: Type.Optional(NullableUuid),
};

export const deviceCreated = defineEvent(
  'provisioning.device.created',
  1,
  Type.Object({ ...Peer, ...Owner, name: Type.String(), platform: Type.String(), isActive: Type.Boolean() }),
);
export const deviceRenamed = defineEvent(
  'provisioning.device.renamed',
  1,
  Type.Object({ deviceId: Uuid, ...Owner, name: Type.String() }),
);
/**
 * A device's tunnel privacy changed (issue #25): the blocking categories on and the split-tunnel
 * preset, for the organizations' audit log. Custom routes are not carried: they may name a
 * person's own networks, and the log says only which preset.
 */
export const devicePrivacyChanged = defineEvent(
  'provisioning.device.privacy-changed',
  1,
  Type.Object({
    deviceId: Uuid,
    ...Owner,
    blocking: Type.Array(Type.String(), { maxItems: 5 }),
    splitTunnel: Type.String(),
  }),
);
export const deviceSuspended = defineEvent(
  'provisioning.device.suspended',
  1,
  Type.Object({ ...Peer, ...Owner, reason: Type.String() }),
);
export const deviceActivated = defineEvent('provisioning.device.activated', 1, Type.Object({ ...Peer, ...Owner }));
export const deviceRemoved = defineEvent(
  'provisioning.device.removed',
  1,
  Type.Object({ deviceId: Uuid, nodeId: Uuid, publicKey: Type.Union([Type.String(), Type.Null()]), ...Owner }),
);
export const keyRequested = defineEvent('provisioning.key.requested', 1, Type.Object({ deviceId: Uuid, ...Owner }));
export const keyRotated = defineEvent(
  'provisioning.key.rotated',
  1,
  Type.Object({
    ...Peer,
    ...Owner,
    previousPublicKey: Type.Union([Type.String(), Type.Null()]),
    isActive: Type.Boolean(),
  }),
);
export const keysRevoked = defineEvent(
  'provisioning.keys.revoked',
  1,
  Type.Object({ deviceId: Uuid, nodeId: Uuid, publicKey: Type.Union([Type.String(), Type.Null()]), ...Owner }),
);

/**
 * The device moved to another node (its region changed, or a drain moved it): same key, new node
 * and addresses. Its old peer stays on `previousNodeId` until the device is seen through the new
 * node; telemetry maps the key to the new node from this event.
 */
export const deviceMoved = defineEvent(
  'provisioning.device.moved',
  1,
  Type.Object({ ...Peer, ...Owner, previousNodeId: Uuid, isActive: Type.Boolean() }),
);

const Key = Type.String({ minLength: 44, maxLength: 44 });

/**
 * What a node is told, on the one subject that carries its name (`provisioning.peers.<node>`):
 * public keys and addresses only. A node's credentials read only its own subject, and nothing
 * here names a device, a person or an organization. One subject per node keeps the node's
 * durable consumer to a single exact filter (NATS 2.9 takes one).
 */
export const nodePeerChanged = defineEvent(
  'provisioning.peers.{node}',
  1,
  Type.Union([
    Type.Object({
      change: Type.Literal('set'),
      publicKey: Key,
      allowedIps: Type.Array(Type.String({ maxLength: 64 }), { minItems: 1, maxItems: 4 }),
      /** The key this one replaces (a rotated key); it leaves the interface in the same step. */
      replaces: Type.Union([Key, Type.Null()]),
      /**
       * The peer has a preshared key (issue #25). The key itself is never in an event (streams keep
       * them for a week): the node asks for it with `desired-peers` and `public_keys`.
       */
      presharedKey: Type.Optional(Type.Boolean()),
    }),
    Type.Object({ change: Type.Literal('remove'), publicKey: Key }),
  ]),
);

/** A node joined or announced itself again: the name its subjects carry and the id services store. */
export const nodeRegistered = defineEvent(
  'provisioning.node.registered',
  1,
  Type.Object({ nodeId: Uuid, name: Type.String({ minLength: 1, maxLength: 64 }), region: Type.String() }),
);

export const provisioningEvents = [
  nodePeerChanged,
  nodeRegistered,
  deviceCreated,
  deviceRenamed,
  devicePrivacyChanged,
  deviceSuspended,
  deviceActivated,
  deviceRemoved,
  keyRequested,
  keyRotated,
  keysRevoked,
  deviceMoved,
];
