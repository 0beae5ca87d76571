import { Type } from 'typebox';
import {
  ConfigFormatSchema,
  CountrySchema,
  DeviceOverviewSchema,
  DevicePrivacyFields,
  DeviceViewSchema,
  DeviceWithStatusSchema,
  KeyRotationScheduleSchema,
  PeerInfoSchema,
  RegionChoiceSchema,
} from '../provisioning/provisioning.rpc.ts';
import { deviceNameMaxLength } from '../devices.ts';
import { defineRoute, NoContentSchema } from './route.ts';

const tags = ['devices'];
/** A device id as the path carries it; a malformed one names nobody's device (the same 404). */
export const DeviceParamsSchema = Type.Object({ id: Type.String({ maxLength: 64 }) });
const PublicKey = Type.String({ maxLength: 64, description: 'a WireGuard public key made in the browser' });

export const listDevicesRoute = defineRoute({
  operationId: 'listDevices',
  method: 'GET',
  url: '/api/devices',
  access: 'signed-in',
  tags,
  summary: 'Your personal devices, newest first, with connection status',
  response: { 200: Type.Object({ devices: Type.Array(DeviceWithStatusSchema) }) },
});

export const deviceOverviewRoute = defineRoute({
  operationId: 'deviceOverview',
  method: 'GET',
  url: '/api/overview',
  access: 'signed-in',
  tags,
  summary: 'Devices, connected devices and VPN status (Online if at least one is connected, else Idle)',
  response: { 200: DeviceOverviewSchema },
});

export const CreateDeviceBodySchema = Type.Object({
  name: Type.String({ maxLength: 1000, description: `1–${deviceNameMaxLength} characters after trimming` }),
  platform: Type.String({ maxLength: 32 }),
  public_key: Type.Optional(PublicKey),
  /** Where it connects (issue #23): a region, or Automatic (the default), nearest `country` first. */
  region: Type.Optional(RegionChoiceSchema),
  country: Type.Optional(CountrySchema),
  /** Tunnel privacy: content blocking and split tunnel (defaults: none, all traffic). */
  ...DevicePrivacyFields,
});
export const DeviceAnswerSchema = Type.Object({ device: DeviceViewSchema });

export const createDeviceRoute = defineRoute({
  operationId: 'createDevice',
  method: 'POST',
  url: '/api/devices',
  access: 'signed-in',
  tags,
  summary: `Add a device (name 1–${deviceNameMaxLength} characters, platform from the list); optionally with a public key made in the browser`,
  body: CreateDeviceBodySchema,
  response: { 201: DeviceAnswerSchema },
});

export const UpdateDeviceBodySchema = Type.Object(
  { name: Type.Optional(Type.String({ maxLength: 1000 })), is_active: Type.Optional(Type.Boolean()) },
  { additionalProperties: false },
);

export const updateDeviceRoute = defineRoute({
  operationId: 'updateDevice',
  method: 'PATCH',
  url: '/api/devices/:id',
  access: 'signed-in',
  tags,
  summary: 'Rename, suspend (is_active false) or activate a device',
  params: DeviceParamsSchema,
  body: UpdateDeviceBodySchema,
  response: { 200: DeviceAnswerSchema },
});

export const removeDeviceRoute = defineRoute({
  operationId: 'removeDevice',
  method: 'DELETE',
  url: '/api/devices/:id',
  access: 'signed-in',
  tags,
  summary: 'Remove a device; its address is released',
  params: DeviceParamsSchema,
  response: { 204: NoContentSchema },
});

export const RequestKeyBodySchema = Type.Optional(Type.Object({ public_key: Type.Optional(PublicKey) }));
export const RequestKeyAnswerSchema = Type.Object({ device: DeviceViewSchema, emailed: Type.Boolean() });

export const requestKeyRoute = defineRoute({
  operationId: 'requestKey',
  method: 'POST',
  url: '/api/devices/:id/key',
  access: 'signed-in',
  tags,
  summary: 'Request key: a new key pair, the node updated, the new config emailed',
  params: DeviceParamsSchema,
  body: RequestKeyBodySchema,
  response: { 200: RequestKeyAnswerSchema },
});

export const KeyRotationBodySchema = Type.Object(
  {
    /** A new key every 30 or 90 days (the old one works 24 h more), or null: off. */
    every_days: KeyRotationScheduleSchema,
  },
  { additionalProperties: false },
);

export const setKeyRotationRoute = defineRoute({
  operationId: 'setKeyRotation',
  method: 'PATCH',
  url: '/api/devices/:id/key-rotation',
  access: 'signed-in',
  tags,
  summary: 'Scheduled key rotation: every 30 or 90 days the new config is mailed; the old key works 24 h more',
  params: DeviceParamsSchema,
  body: KeyRotationBodySchema,
  response: { 200: DeviceAnswerSchema },
});

export const DevicePrivacyBodySchema = Type.Object(DevicePrivacyFields, { additionalProperties: false });

/**
 * Tunnel privacy per device: content blocking (the categories its resolver blocks) and split
 * tunnel (everything, everything except local networks, or listed routes). Both are in the config,
 * so `config_changed` tells the page to ask for a new download or scan.
 */
export const setDevicePrivacyRoute = defineRoute({
  operationId: 'setDevicePrivacy',
  method: 'PATCH',
  url: '/api/devices/:id/privacy',
  access: 'signed-in',
  tags,
  summary:
    'Content blocking and split tunnel of a device (who may rename it may); the config must be downloaded again when they change',
  params: DeviceParamsSchema,
  body: DevicePrivacyBodySchema,
  response: { 200: Type.Object({ device: DeviceViewSchema, config_changed: Type.Boolean() }) },
});

export const devicePeerInfoRoute = defineRoute({
  operationId: 'devicePeerInfo',
  method: 'GET',
  url: '/api/devices/:id/peer-info',
  access: 'signed-in',
  tags,
  summary: 'Server side of the config for a device whose key the browser made',
  params: DeviceParamsSchema,
  response: { 200: PeerInfoSchema },
});

export const ConfigLinkSchema = Type.Object({ url: Type.String(), qr_url: Type.String(), expires_in: Type.Integer() });

export const configLinkRoute = defineRoute({
  operationId: 'configLink',
  method: 'POST',
  url: '/api/devices/:id/config-link',
  access: 'signed-in',
  tags,
  summary: 'Links to the config file and its QR code, each good once within 60 seconds (a new tab carries no token)',
  params: DeviceParamsSchema,
  response: { 200: ConfigLinkSchema },
});

export const DeviceConfigQuerySchema = Type.Object({
  format: Type.Optional(ConfigFormatSchema),
  token: Type.Optional(Type.String({ maxLength: 2000, description: 'a link from config-link, instead of a session' })),
  kill_switch: Type.Optional(
    Type.Boolean({
      description: "adds wg-quick's PostUp/PreDown kill-switch rules (Linux): nothing leaves outside the tunnel",
    }),
  ),
});

export const deviceConfigRoute = defineRoute({
  operationId: 'deviceConfig',
  method: 'GET',
  url: '/api/device/:id/config',
  access: 'signed-in-or-link',
  tags,
  summary: "The device's wg-quick file (attachment, not cached), or ?format=qr for the same config as a PNG QR code",
  params: DeviceParamsSchema,
  querystring: DeviceConfigQuerySchema,
  response: {
    200: Type.String({ description: 'text/plain: the wg-quick file; image/png with ?format=qr' }),
  },
});

export const ChangeRegionBodySchema = Type.Object(
  { region: RegionChoiceSchema, country: Type.Optional(CountrySchema) },
  { additionalProperties: false },
);
/**
 * Moves a device to a server of another region (issue #23): new Endpoint and server key, same
 * device key; its old peer stays until the device is seen through the new server. `moved` is
 * false when its server already fits the choice (the choice is kept, nothing moves).
 */
export const changeDeviceRegionRoute = defineRoute({
  operationId: 'changeDeviceRegion',
  method: 'POST',
  url: '/api/devices/:id/region',
  access: 'signed-in',
  tags,
  summary:
    'Choose the region a device connects to; when it moves, its config must be downloaded again (page and mail say so)',
  params: DeviceParamsSchema,
  body: ChangeRegionBodySchema,
  response: { 200: Type.Object({ device: DeviceViewSchema, moved: Type.Boolean() }) },
});

export const deviceRoutes = [
  listDevicesRoute,
  deviceOverviewRoute,
  createDeviceRoute,
  updateDeviceRoute,
  removeDeviceRoute,
  requestKeyRoute,
  setKeyRotationRoute,
  changeDeviceRegionRoute,
  setDevicePrivacyRoute,
  devicePeerInfoRoute,
  configLinkRoute,
  deviceConfigRoute,
];
