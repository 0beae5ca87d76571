import { randomUUID } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { Logger } from 'pino';
import {
  AppError, deviceActivated, requireUserId, deviceCreated, deviceRemoved, deviceRenamed, deviceSuspended, getMeRpc, keyRequested, keyRotated,
  type Caller, type DeviceView, type Platform,
} from '@qw/contracts';
import { addToOutbox, type RpcClient } from '@qw/platform/bus';
import type { Mailer } from '@qw/platform/mailer';
import {
  configFileName, configQrPng, decryptPrivateKey, deviceAddressCidrs, encryptPrivateKey, generateKeyPair, isWireGuardKey, renderClientConfig,
} from '@qw/wireguard';
import type { Device, Node, ProvisioningDatabase } from '../database.ts';
import { activePlanOf } from '../entitlements/entitlements.service.ts';
import { leaseAddress } from '../nodes/nodes.service.ts';
import { deviceConfigMail } from '../mail/device-config-mail.ts';
import { chooseNode, validDeviceName, validPlatform } from './device-rules.ts';

type Db = Kysely<ProvisioningDatabase>;

export type DevicesDeps = { db: Db; rpc: RpcClient; mailer: Mailer; logger: Logger; vaultKey: string; dns: string[] };

const notFound = () => new AppError('not_found', 'Device not found.');

function view(device: Device, node: Node | undefined): DeviceView {
  return {
    id: device.id, name: device.name, platform: device.platform, is_active: device.is_active, user_id: device.user_id, org_id: device.org_id,
    created_at: new Date(device.created_at).toISOString(), public_key: device.public_key,
    addresses: device.ipv4 && device.ipv6 ? deviceAddressCidrs(device.ipv4, device.ipv6) : [],
    node: node ? { id: node.id, name: node.name, region: node.region } : null,
    key_created_at: device.key_created_at ? new Date(device.key_created_at).toISOString() : null,
    client_keys: device.client_keys,
  };
}

function peerOf(device: Device) {
  return { deviceId: device.id, nodeId: device.node_id!, publicKey: device.public_key!, allowedIps: deviceAddressCidrs(device.ipv4!, device.ipv6!) };
}

/** Devices: add, rename, suspend, activate, remove, new keys, and their configuration files. */
export class DevicesService {
  constructor(private readonly deps: DevicesDeps) {}

  private async nodesById(ids: Array<string | null>): Promise<Map<string, Node>> {
    const wanted = [...new Set(ids.filter((id): id is string => Boolean(id)))];
    if (wanted.length === 0) return new Map();
    const nodes = await this.deps.db.selectFrom('nodes').selectAll().where('id', 'in', wanted).execute();
    return new Map(nodes.map((node) => [node.id, node]));
  }

  /** The caller's own personal devices (org_id null), newest first. */
  async list(caller: Caller): Promise<DeviceView[]> {
    const userId = requireUserId(caller);
    const devices = await this.deps.db.selectFrom('devices').selectAll().where('user_id', '=', userId).where('org_id', 'is', null)
      .orderBy('created_at', 'desc').orderBy('id', 'desc').execute();
    const nodes = await this.nodesById(devices.map((d) => d.node_id));
    return devices.map((device) => view(device, device.node_id ? nodes.get(device.node_id) : undefined));
  }

  /** One of the caller's devices, locked for the transaction; someone else's is "not found". */
  private async ownDevice(tx: Db, caller: Caller, deviceId: string): Promise<Device> {
    const userId = requireUserId(caller);
    const device = await tx.selectFrom('devices').selectAll().where('id', '=', deviceId).forUpdate().executeTakeFirst();
    if (!device || device.user_id !== userId) throw notFound();
    return device;
  }

  private async requireEntitlement(db: Db, caller: Caller): Promise<string> {
    const plan = await activePlanOf(db, { userId: caller.userId!, orgId: null });
    if (!plan) throw new AppError('no_entitlement', 'Devices come with an active Personal or Gaming plan. Choose a plan on the pricing page to add devices.');
    return plan;
  }

  async create(caller: Caller, input: { name: string; platform: string; public_key?: string | undefined }): Promise<DeviceView> {
    const userId = requireUserId(caller);
    const name = validDeviceName(input.name);
    const platform = validPlatform(input.platform);
    if (input.public_key !== undefined && !isWireGuardKey(input.public_key)) {
      throw new AppError('validation_failed', 'The public key must be a WireGuard key (44 characters of base64).', { field: 'public_key' });
    }
    const id = randomUUID();
    const created = await this.deps.db.transaction().execute(async (tx) => {
      const plan = await this.requireEntitlement(tx, caller);
      const candidates = await tx.selectFrom('nodes').leftJoin('devices', 'devices.node_id', 'nodes.id')
        .select(['nodes.id', 'nodes.tags', (eb) => eb.fn.count<string>('devices.id').as('devices')])
        .groupBy('nodes.id').orderBy('nodes.created_at').execute();
      const chosen = chooseNode(candidates.map((c) => ({ id: c.id, tags: c.tags, devices: Number(c.devices) })), plan);
      if (!chosen) throw new AppError('unavailable', 'No VPN server is available right now. Try again in a few minutes.');
      const node = await tx.selectFrom('nodes').selectAll().where('id', '=', chosen.id).executeTakeFirstOrThrow();
      const address = await leaseAddress(tx, node);
      const keys = input.public_key ? { publicKey: input.public_key, privateKey: null } : generateKeyPair();
      const device = await tx.insertInto('devices').values({
        id, user_id: userId, org_id: null, name, platform, public_key: keys.publicKey,
        private_key_sealed: keys.privateKey ? encryptPrivateKey(keys.privateKey, this.deps.vaultKey, id) : null,
        client_keys: keys.privateKey === null, node_id: node.id, ipv4: address.ipv4, ipv6: address.ipv6, key_created_at: new Date(),
      }).returningAll().executeTakeFirstOrThrow();
      await addToOutbox(tx, deviceCreated, { ...peerOf(device), userId, orgId: null, name, platform, isActive: true });
      return { device, node };
    });
    await this.mailConfig(caller, created.device, created.node, false);
    return view(created.device, created.node);
  }

  async update(caller: Caller, input: { device_id: string; name?: string | undefined; is_active?: boolean | undefined }): Promise<DeviceView> {
    const result = await this.deps.db.transaction().execute(async (tx) => {
      const device = await this.ownDevice(tx, caller, input.device_id);
      const changes: { name?: string; is_active?: boolean } = {};
      if (input.name !== undefined) {
        const name = validDeviceName(input.name);
        if (name !== device.name) changes.name = name;
      }
      if (input.is_active !== undefined && input.is_active !== device.is_active) {
        if (input.is_active) await this.requireEntitlement(tx, caller);
        changes.is_active = input.is_active;
      }
      if (Object.keys(changes).length === 0) return device;
      const after = await tx.updateTable('devices').set(changes).where('id', '=', device.id).returningAll().executeTakeFirstOrThrow();
      const owner = { userId: after.user_id, orgId: after.org_id };
      if (changes.name !== undefined) await addToOutbox(tx, deviceRenamed, { deviceId: after.id, ...owner, name: after.name });
      if (changes.is_active === false && after.public_key) await addToOutbox(tx, deviceSuspended, { ...peerOf(after), ...owner, reason: 'owner' });
      if (changes.is_active === true && after.public_key) await addToOutbox(tx, deviceActivated, { ...peerOf(after), ...owner });
      return after;
    });
    const nodes = await this.nodesById([result.node_id]);
    return view(result, result.node_id ? nodes.get(result.node_id) : undefined);
  }

  /** Deletes the device: its peer leaves the node and its address is free again. */
  async remove(caller: Caller, deviceId: string): Promise<void> {
    await this.deps.db.transaction().execute(async (tx) => {
      const device = await this.ownDevice(tx, caller, deviceId);
      await tx.deleteFrom('devices').where('id', '=', device.id).execute();
      if (device.node_id) {
        await addToOutbox(tx, deviceRemoved, { deviceId: device.id, nodeId: device.node_id, publicKey: device.public_key, userId: device.user_id, orgId: device.org_id });
      }
    });
  }

  /**
   * "Request key": a new key pair (or the browser's new public key), the node updated, and the
   * new configuration emailed. The old key stops working as soon as the node applies the change.
   */
  async requestKey(caller: Caller, input: { device_id: string; public_key?: string | undefined }): Promise<{ device: DeviceView; emailed: boolean }> {
    if (input.public_key !== undefined && !isWireGuardKey(input.public_key)) {
      throw new AppError('validation_failed', 'The public key must be a WireGuard key (44 characters of base64).', { field: 'public_key' });
    }
    const rotated = await this.deps.db.transaction().execute(async (tx) => {
      const device = await this.ownDevice(tx, caller, input.device_id);
      if (!device.node_id) throw new AppError('conflict', 'This device has no server yet.');
      const keys = input.public_key ? { publicKey: input.public_key, privateKey: null } : generateKeyPair();
      const after = await tx.updateTable('devices').set({
        public_key: keys.publicKey,
        private_key_sealed: keys.privateKey ? encryptPrivateKey(keys.privateKey, this.deps.vaultKey, device.id) : null,
        client_keys: keys.privateKey === null,
        key_created_at: new Date(),
      }).where('id', '=', device.id).returningAll().executeTakeFirstOrThrow();
      const owner = { userId: after.user_id, orgId: after.org_id };
      await addToOutbox(tx, keyRequested, { deviceId: after.id, ...owner });
      await addToOutbox(tx, keyRotated, { ...peerOf(after), ...owner, previousPublicKey: device.public_key, isActive: after.is_active });
      const node = await tx.selectFrom('nodes').selectAll().where('id', '=', after.node_id!).executeTakeFirstOrThrow();
      return { device: after, node };
    });
    const emailed = await this.mailConfig(caller, rotated.device, rotated.node, true);
    return { device: view(rotated.device, rotated.node), emailed };
  }

  /** The wg-quick file of a server-keyed device; its owner only. */
  async config(caller: Caller, deviceId: string): Promise<{ file_name: string; config: string }> {
    const device = await this.deps.db.transaction().execute((tx) => this.ownDevice(tx, caller, deviceId));
    if (!device.private_key_sealed || !device.node_id) {
      throw new AppError('conflict', 'This device was set up with a key made in your browser, so only that browser has its private key. Use "Request key" to make a new one.');
    }
    const node = await this.deps.db.selectFrom('nodes').selectAll().where('id', '=', device.node_id).executeTakeFirstOrThrow();
    return { file_name: configFileName(device.name), config: this.render(device, node) };
  }

  /** Everything the browser needs to write the file itself when it holds the private key. */
  async peerInfo(caller: Caller, deviceId: string) {
    const device = await this.deps.db.transaction().execute((tx) => this.ownDevice(tx, caller, deviceId));
    if (!device.node_id) throw new AppError('conflict', 'This device has no server yet.');
    const node = await this.deps.db.selectFrom('nodes').selectAll().where('id', '=', device.node_id).executeTakeFirstOrThrow();
    return {
      file_name: configFileName(device.name), addresses: deviceAddressCidrs(device.ipv4!, device.ipv6!), dns: this.deps.dns,
      server_public_key: node.public_key, endpoint: node.endpoint,
    };
  }

  private render(device: Device, node: Node): string {
    return renderClientConfig({
      deviceName: device.name,
      privateKey: decryptPrivateKey(device.private_key_sealed!, this.deps.vaultKey, device.id),
      addresses: deviceAddressCidrs(device.ipv4!, device.ipv6!),
      dns: this.deps.dns,
      serverPublicKey: node.public_key,
      endpoint: node.endpoint,
    });
  }

  /** Mails the configuration to an owner whose address is verified; a failure is logged, never fatal. */
  private async mailConfig(caller: Caller, device: Device, node: Node, rotated: boolean): Promise<boolean> {
    if (!caller.emailVerified || !device.private_key_sealed) return false;
    try {
      const me = await this.deps.rpc.request(getMeRpc, {}, caller);
      const config = this.render(device, node);
      await this.deps.mailer.send(deviceConfigMail({
        to: me.user.email, deviceName: device.name, platform: device.platform as Platform, fileName: configFileName(device.name),
        config, qrPng: await configQrPng(config), rotated,
      }));
      return true;
    } catch (error) {
      this.deps.logger.error({ err: error, deviceId: device.id }, 'configuration mail not sent');
      return false;
    }
  }
}
