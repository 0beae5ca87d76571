import { Type } from 'typebox';
import {
  AppError, DeviceViewSchema, createDeviceRpc, deviceConfigRpc, devicePeerInfoRpc, latestTelemetryRpc, listDevicesRpc, removeDeviceRpc,
  requestKeyRpc, updateDeviceRpc, type Caller, type DeviceView,
} from '@qw/contracts';
import type { HttpApp, RpcClient } from '@qw/platform';
import type { FastifyRequest } from 'fastify';
import { configQrPng } from '@qw/wireguard';
import { requireSignedIn } from '../auth/caller.ts';

const tags = ['devices'];
const security = [{ bearer: [] }];
const uuidPattern = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const DeviceParams = Type.Object({ id: Type.String({ maxLength: 64 }) });
const DeviceWithStatus = Type.Intersect([DeviceViewSchema, Type.Object({
  is_connected: Type.Boolean(),
  latest_handshake: Type.Union([Type.String(), Type.Null()]),
  rx_bytes: Type.Integer(),
  tx_bytes: Type.Integer(),
})]);

/** A malformed id names no device of anyone's: the same 404 as someone else's device. */
function deviceId(raw: string): string {
  if (!uuidPattern.test(raw)) throw new AppError('not_found', 'Device not found.');
  return raw.toLowerCase();
}

type ConfigClaims = { sub: string; dev: string; purpose: 'config'; acct: string; adm: boolean; ver: boolean };

export function registerDeviceRoutes(app: HttpApp, deps: { rpc: RpcClient }): void {
  const { rpc } = deps;

  async function withStatus(caller: Caller, devices: DeviceView[]) {
    const { devices: latest } = devices.length === 0 ? { devices: [] } : await rpc.request(latestTelemetryRpc, { device_ids: devices.map((d) => d.id) }, caller);
    const byId = new Map(latest.map((row) => [row.device_id, row]));
    return devices.map((device) => {
      const status = byId.get(device.id);
      return { ...device, is_connected: Boolean(status?.is_connected && device.is_active), latest_handshake: status?.latest_handshake ?? null, rx_bytes: status?.rx_bytes ?? 0, tx_bytes: status?.tx_bytes ?? 0 };
    });
  }

  app.get('/api/devices', { schema: { tags, security, summary: 'Your personal devices, newest first, with connection status', response: { 200: Type.Object({ devices: Type.Array(DeviceWithStatus) }) } } },
    async (request, reply) => {
      const caller = requireSignedIn(request);
      const { devices } = await rpc.request(listDevicesRpc, {}, caller);
      return reply.header('cache-control', 'no-store').send({ devices: await withStatus(caller, devices) });
    });

  app.get('/api/overview', {
    schema: { tags, security, summary: 'Devices, connected devices and VPN status (Online if at least one is connected, else Idle)', response: { 200: Type.Object({ devices: Type.Integer(), connected: Type.Integer(), vpn_status: Type.Union([Type.Literal('Online'), Type.Literal('Idle')]) }) } },
  }, async (request, reply) => {
    const caller = requireSignedIn(request);
    const { devices } = await rpc.request(listDevicesRpc, {}, caller);
    const connected = (await withStatus(caller, devices)).filter((d) => d.is_connected).length;
    return reply.header('cache-control', 'no-store').send({ devices: devices.length, connected, vpn_status: connected > 0 ? 'Online' as const : 'Idle' as const });
  });

  app.post('/api/devices', {
    schema: {
      tags, security, summary: 'Add a device (name 1–64 characters, platform from the list); optionally with a public key made in the browser',
      body: Type.Object({ name: Type.String({ maxLength: 1000 }), platform: Type.String({ maxLength: 32 }), public_key: Type.Optional(Type.String({ maxLength: 64 })) }),
      response: { 201: Type.Object({ device: DeviceViewSchema }) },
    },
  }, async (request, reply) => reply.status(201).send(await rpc.request(createDeviceRpc, request.body, requireSignedIn(request))));

  app.patch('/api/devices/:id', {
    schema: { tags, security, summary: 'Rename, suspend (is_active false) or activate a device', params: DeviceParams, body: Type.Object({ name: Type.Optional(Type.String({ maxLength: 1000 })), is_active: Type.Optional(Type.Boolean()) }, { additionalProperties: false }), response: { 200: Type.Object({ device: DeviceViewSchema }) } },
  }, async (request) => rpc.request(updateDeviceRpc, { device_id: deviceId(request.params.id), ...request.body }, requireSignedIn(request)));

  app.delete('/api/devices/:id', { schema: { tags, security, summary: 'Remove a device; its address is released', params: DeviceParams } }, async (request, reply) => {
    await rpc.request(removeDeviceRpc, { device_id: deviceId(request.params.id) }, requireSignedIn(request));
    return reply.status(204).send();
  });

  app.post('/api/devices/:id/key', {
    schema: { tags, security, summary: 'Request key: a new key pair, the node updated, the new config emailed', params: DeviceParams, body: Type.Optional(Type.Object({ public_key: Type.Optional(Type.String({ maxLength: 64 })) })), response: { 200: Type.Object({ device: DeviceViewSchema, emailed: Type.Boolean() }) } },
  }, async (request) => rpc.request(requestKeyRpc, { device_id: deviceId(request.params.id), ...(request.body ?? {}) }, requireSignedIn(request)));

  app.get('/api/devices/:id/peer-info', {
    schema: { tags, security, summary: 'Server side of the config for a device whose key the browser made', params: DeviceParams },
  }, async (request) => rpc.request(devicePeerInfoRpc, { device_id: deviceId(request.params.id) }, requireSignedIn(request)));

  app.post('/api/devices/:id/config-link', {
    schema: { tags, security, summary: 'A link to the config file that works for 60 seconds (for opening in a new tab, which carries no token)', params: DeviceParams, response: { 200: Type.Object({ url: Type.String(), qr_url: Type.String(), expires_in: Type.Integer() }) } },
  }, async (request) => {
    const caller = requireSignedIn(request);
    const id = deviceId(request.params.id);
    await rpc.request(deviceConfigRpc, { device_id: id }, caller);
    const claims: ConfigClaims = { sub: caller.userId!, dev: id, purpose: 'config', acct: caller.accountType ?? 'personal', adm: caller.isAdmin, ver: caller.emailVerified };
    const token = app.jwt.sign(claims as never, { expiresIn: 60 });
    return { url: `/api/device/${id}/config?token=${token}`, qr_url: `/api/device/${id}/config?format=qr&token=${token}`, expires_in: 60 };
  });

  /** The caller of a config download: the bearer token, or a config link made for this very device. */
  async function configCaller(request: FastifyRequest<{ Querystring: { token?: string } }>, id: string): Promise<Caller> {
    if (request.caller.userId) return request.caller;
    const token = request.query.token;
    if (!token) throw new AppError('not_signed_in', 'Not signed in');
    let claims: ConfigClaims;
    try {
      claims = app.jwt.verify<ConfigClaims>(token);
    } catch {
      throw new AppError('invalid_token', 'This download link has expired. Open the config again from your devices.');
    }
    if (claims.purpose !== 'config' || claims.dev !== id) throw new AppError('not_found', 'Device not found.');
    return { userId: claims.sub, accountType: claims.acct, isAdmin: claims.adm, emailVerified: claims.ver };
  }

  app.get('/api/device/:id/config', {
    schema: {
      tags, security, summary: 'The device\'s wg-quick file (attachment, not cached), or ?format=qr for the same config as a PNG QR code',
      params: DeviceParams, querystring: Type.Object({ format: Type.Optional(Type.Union([Type.Literal('conf'), Type.Literal('qr')])), token: Type.Optional(Type.String({ maxLength: 2000 })) }),
    },
  }, async (request, reply) => {
    const id = deviceId(request.params.id);
    const { file_name, config } = await rpc.request(deviceConfigRpc, { device_id: id }, await configCaller(request, id));
    reply.header('cache-control', 'no-store').header('x-content-type-options', 'nosniff').header('referrer-policy', 'no-referrer');
    if (request.query.format === 'qr') {
      const png = await configQrPng(config);
      return reply.type('image/png').header('content-disposition', `inline; filename="${file_name.replace(/\.conf$/, '')}-qr.png"`).send(png);
    }
    return reply.type('text/plain; charset=utf-8').header('content-disposition', `attachment; filename="${file_name}"`).send(config);
  });
}
