import { Type, type Static } from 'typebox';
import { defineRpc } from '../rpc.ts';

const Uuid = Type.String({ format: 'uuid' });

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
  node: Type.Union([Type.Object({ id: Uuid, name: Type.String(), region: Type.String() }), Type.Null()]),
  key_created_at: Type.Union([Type.String(), Type.Null()]),
  /** True when the browser made the key pair: the server cannot render the config. */
  client_keys: Type.Boolean(),
});
export type DeviceView = Static<typeof DeviceViewSchema>;

export const NodeRegistrationSchema = Type.Object({
  name: Type.String({ minLength: 1, maxLength: 64 }),
  region: Type.String({ minLength: 1, maxLength: 64 }),
  endpoint: Type.String({ minLength: 3, maxLength: 255 }),
  public_key: Type.String({ minLength: 44, maxLength: 44 }),
  ip: Type.String({ maxLength: 64 }),
  ssh_user: Type.Optional(Type.String({ maxLength: 64 })),
  ssh_port: Type.Optional(Type.Integer({ minimum: 1, maximum: 65535 })),
  tags: Type.Array(Type.String({ maxLength: 32 }), { maxItems: 16 }),
});
export const NodeAddressingSchema = Type.Object({
  node_id: Uuid,
  ipv4_cidr: Type.String(),
  ipv6_cidr: Type.String(),
  node_ipv4: Type.String(),
  node_ipv6: Type.String(),
  dns: Type.Array(Type.String()),
});
export const DesiredPeerSchema = Type.Object({ public_key: Type.String(), allowed_ips: Type.Array(Type.String()) });

export const listDevicesRpc = defineRpc('provisioning.rpc.list-devices', Type.Object({ org_id: Type.Optional(Uuid) }), Type.Object({ devices: Type.Array(DeviceViewSchema) }));
export const createDeviceRpc = defineRpc('provisioning.rpc.create-device', Type.Object({
  name: Type.String({ maxLength: 1000 }),
  platform: Type.String({ maxLength: 32 }),
  public_key: Type.Optional(Type.String({ maxLength: 64 })),
}), Type.Object({ device: DeviceViewSchema }));
export const updateDeviceRpc = defineRpc('provisioning.rpc.update-device', Type.Object({
  device_id: Uuid,
  name: Type.Optional(Type.String({ maxLength: 1000 })),
  is_active: Type.Optional(Type.Boolean()),
}), Type.Object({ device: DeviceViewSchema }));
export const removeDeviceRpc = defineRpc('provisioning.rpc.remove-device', Type.Object({ device_id: Uuid }), Type.Object({}));
export const requestKeyRpc = defineRpc('provisioning.rpc.request-key', Type.Object({ device_id: Uuid, public_key: Type.Optional(Type.String({ maxLength: 64 })) }), Type.Object({ device: DeviceViewSchema, emailed: Type.Boolean() }));
export const deviceConfigRpc = defineRpc('provisioning.rpc.device-config', Type.Object({ device_id: Uuid }), Type.Object({ file_name: Type.String(), config: Type.String() }));
/** For devices whose key the browser made: everything but the private key, so the page assembles the file. */
export const devicePeerInfoRpc = defineRpc('provisioning.rpc.device-peer-info', Type.Object({ device_id: Uuid }), Type.Object({
  file_name: Type.String(), addresses: Type.Array(Type.String()), dns: Type.Array(Type.String()), server_public_key: Type.String(), endpoint: Type.String(),
}));
export const registerNodeRpc = defineRpc('provisioning.rpc.register-node', NodeRegistrationSchema, NodeAddressingSchema);
/** Paged by public key: a node's whole peer set can be larger than one NATS message (1 MB). */
export const desiredPeersRpc = defineRpc('provisioning.rpc.desired-peers', Type.Object({
  node_id: Uuid,
  after: Type.Optional(Type.String({ maxLength: 64 })),
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 5000 })),
}), Type.Object({ peers: Type.Array(DesiredPeerSchema), next: Type.Union([Type.String(), Type.Null()]) }));
