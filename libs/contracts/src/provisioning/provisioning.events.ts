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
const Owner = { userId: Uuid, orgId: NullableUuid };

export const deviceCreated = defineEvent('provisioning.device.created', 1, Type.Object({ ...Peer, ...Owner, name: Type.String(), platform: Type.String(), isActive: Type.Boolean() }));
export const deviceRenamed = defineEvent('provisioning.device.renamed', 1, Type.Object({ deviceId: Uuid, ...Owner, name: Type.String() }));
export const deviceSuspended = defineEvent('provisioning.device.suspended', 1, Type.Object({ ...Peer, ...Owner, reason: Type.String() }));
export const deviceActivated = defineEvent('provisioning.device.activated', 1, Type.Object({ ...Peer, ...Owner }));
export const deviceRemoved = defineEvent('provisioning.device.removed', 1, Type.Object({ deviceId: Uuid, nodeId: Uuid, publicKey: Type.Union([Type.String(), Type.Null()]), ...Owner }));
export const keyRequested = defineEvent('provisioning.key.requested', 1, Type.Object({ deviceId: Uuid, ...Owner }));
export const keyRotated = defineEvent('provisioning.key.rotated', 1, Type.Object({ ...Peer, ...Owner, previousPublicKey: Type.Union([Type.String(), Type.Null()]), isActive: Type.Boolean() }));
export const keysRevoked = defineEvent('provisioning.keys.revoked', 1, Type.Object({ deviceId: Uuid, nodeId: Uuid, publicKey: Type.Union([Type.String(), Type.Null()]), ...Owner }));

export const provisioningEvents = [deviceCreated, deviceRenamed, deviceSuspended, deviceActivated, deviceRemoved, keyRequested, keyRotated, keysRevoked];
