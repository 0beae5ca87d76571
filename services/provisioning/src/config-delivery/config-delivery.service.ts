import type { Kysely } from 'kysely';
import { AppError, mailAddressRpc, regionLabel, type Caller, type Platform } from '@qw/contracts';
import type { RpcClient } from '@qw/platform/bus';
import { mailNotYet, type MailMessage } from '@qw/platform/mailer';
import { configFileName, configQrPng, deviceAddressCidrs, renderClientConfig, type SealingKeys } from '@qw/wireguard';
import type { Device, Node, ProvisioningDatabase } from '../database.ts';
import { deviceNotFound } from '../devices/device-access.ts';
import { deviceFor } from '../devices/device-for.ts';
import { configDownloaded, deviceById } from '../devices/devices.repository.ts';
import { nodeOf } from '../nodes/nodes.repository.ts';
import { openPresharedKey } from '../keys/preshared-keys.ts';
import { deleteConfigLinksBefore, insertConfigLinks, spendConfigLink } from './config-links.repository.ts';
import {
  configLinkSeconds,
  configMailCurrent,
  configRefusal,
  hashLinkToken,
  newLinkToken,
  suspendedConfigRefusal,
  tunnelLinesOf,
} from './config-rules.ts';
import { deviceConfigMail, deviceMovedMail } from './device-config-mail.ts';

export type ConfigDeliveryDeps = {
  db: Kysely<ProvisioningDatabase>;
  rpc: RpcClient;
  vault: SealingKeys;
  /** VPN_DNS: resolvers that replace the node's own in every config (empty: the node's, as normal). */
  dns: string[];
};

/**
 * A device's configuration reaches its person: the wg-quick file, its QR code, single-use links
 * to either, the mail the mail queue sends, and what the browser needs to write the file itself
 * when it holds the private key.
 */
export class ConfigDelivery {
  constructor(private readonly deps: ConfigDeliveryDeps) {}

  /** The wg-quick file of a server-keyed device; its owner only. */
  async config(caller: Caller, deviceId: string): Promise<{ file_name: string; config: string }> {
    return this.configOf(await this.deviceToConfigure(caller, deviceId));
  }

  /** Two single-use links (the file and its QR code) for a device the caller may see. */
  async issueConfigLinks(caller: Caller, deviceId: string) {
    const device = await this.deviceToConfigure(caller, deviceId);
    // Refused as the file itself would be; the file is rendered when a link is spent.
    const refusal = configRefusal(device);
    if (refusal) throw refusal;
    const tokens = { conf: newLinkToken(), qr: newLinkToken() };
    const expiresAt = new Date(Date.now() + configLinkSeconds * 1000);
    await insertConfigLinks(
      this.deps.db,
      (['conf', 'qr'] as const).map((format) => ({
        token_hash: hashLinkToken(tokens[format]),
        device_id: device.id,
        format,
        expires_at: expiresAt,
      })),
    );
    return { conf_token: tokens.conf, qr_token: tokens.qr, expires_in: configLinkSeconds };
  }

  /** Spends a link: the config once, for the device and format it was made for, within its minute. */
  async configByLink(input: { device_id: string; token: string; format: 'conf' | 'qr' }) {
    const spent = await spendConfigLink(this.deps.db, {
      token_hash: hashLinkToken(input.token),
      device_id: input.device_id,
      format: input.format,
    });
    if (!spent) {
      throw new AppError(
        'link_expired',
        'This download link has expired or was used. Open the config again from your devices.',
      );
    }
    const device = await deviceById(this.deps.db, spent.device_id);
    if (!device) throw deviceNotFound();
    return this.configOf(activeOnly(device));
  }

  /** Links past their minute are of no use to anyone. */
  async pruneConfigLinks(): Promise<void> {
    await deleteConfigLinksBefore(this.deps.db, new Date(Date.now() - 3600_000));
  }

  /** Everything the browser needs to write the file itself when it holds the private key. */
  async peerInfo(caller: Caller, deviceId: string) {
    const device = await this.deviceToConfigure(caller, deviceId);
    if (!device.node_id) throw new AppError('conflict', 'This device has no server yet.');
    const node = await nodeOf(this.deps.db, device.node_id);
    const tunnel = tunnelLinesOf(device, node, this.deps.dns);
    const info = {
      file_name: configFileName(device.name),
      addresses: deviceAddressCidrs(device.ipv4!, device.ipv6!),
      dns: tunnel.dns,
      server_public_key: serverKeyOf(node),
      preshared_key: openPresharedKey(this.deps.vault, device.id, device),
      endpoint: node.endpoint,
      allowed_ips: tunnel.allowedIps,
    };
    await this.downloaded(device);
    return info;
  }

  /**
   * Renders a queued configuration mail now: nothing when the device is gone, its key changed
   * since (a newer mail carries the new one); `mailNotYet` while its person's address is not
   * confirmed (it goes once it is). The mail queue calls it outside any transaction.
   */
  async renderConfigMail(payload: Record<string, unknown>): Promise<MailMessage | null | typeof mailNotYet> {
    const device = await deviceById(this.deps.db, String(payload.deviceId));
    if (!device || !configMailCurrent(device, payload)) return null;
    const address = await this.deps.rpc.request(mailAddressRpc, { user_id: device.user_id });
    // Not confirmed yet: the mail waits for it (identity.user.verified makes it due at once).
    if (!address.verified) return mailNotYet;
    const config = this.render(device, await nodeOf(this.deps.db, device.node_id!));
    return deviceConfigMail({
      to: address.email,
      deviceName: device.name,
      platform: device.platform as Platform,
      fileName: configFileName(device.name),
      config,
      qrPng: await configQrPng(config),
      rotated: payload.rotated === true,
      graceHours: typeof payload.graceHours === 'number' ? payload.graceHours : undefined,
    });
  }

  /**
   * Renders a queued "download again" mail of a move: nothing when the device is gone, has no key,
   * was switched off, or moved on since (its newer move has its own mail). The configuration is
   * attached when the service holds the private key; otherwise the mail sends its person to the
   * devices page.
   */
  async renderMovedMail(payload: Record<string, unknown>): Promise<MailMessage | null | typeof mailNotYet> {
    const device = await deviceById(this.deps.db, String(payload.deviceId));
    if (!device?.public_key || !device.is_active || !device.node_id || device.node_id !== payload.nodeId) return null;
    const address = await this.deps.rpc.request(mailAddressRpc, { user_id: device.user_id });
    if (!address.verified) return mailNotYet;
    const node = await nodeOf(this.deps.db, device.node_id);
    const movedTo = node.city ? `${node.city}, ${regionLabel(node.region)}` : regionLabel(node.region);
    if (!device.private_key_sealed) return deviceMovedMail({ to: address.email, deviceName: device.name, movedTo });
    const config = this.render(device, node);
    return deviceConfigMail({
      to: address.email,
      deviceName: device.name,
      platform: device.platform as Platform,
      fileName: configFileName(device.name),
      config,
      qrPng: await configQrPng(config),
      rotated: false,
      movedTo,
    });
  }

  /** The device, if the caller may have its configuration (the check locks it for an instant). */
  private async deviceToConfigure(caller: Caller, deviceId: string): Promise<Device> {
    const { device } = await this.deps.db.transaction().execute((tx) => deviceFor(tx, caller, deviceId, 'config'));
    return activeOnly(device);
  }

  private async configOf(device: Device): Promise<{ file_name: string; config: string }> {
    const refusal = configRefusal(device);
    if (refusal) throw refusal;
    const node = await nodeOf(this.deps.db, device.node_id!);
    const file = { file_name: configFileName(device.name), config: this.render(device, node) };
    await this.downloaded(device);
    return file;
  }

  /** Its person has the configuration for the node it is on now: it no longer asks to be downloaded again. */
  private async downloaded(device: Device): Promise<void> {
    if (device.config_changed_at) await configDownloaded(this.deps.db, device.id, device.node_id!);
  }

  private render(device: Device, node: Node): string {
    const tunnel = tunnelLinesOf(device, node, this.deps.dns);
    return renderClientConfig({
      deviceName: device.name,
      privateKey: this.deps.vault.open(device.private_key_sealed!, device.private_key_sealed_by, device.id),
      addresses: deviceAddressCidrs(device.ipv4!, device.ipv6!),
      dns: tunnel.dns,
      serverPublicKey: serverKeyOf(node),
      presharedKey: openPresharedKey(this.deps.vault, device.id, device),
      endpoint: node.endpoint,
      allowedIps: tunnel.allowedIps,
    });
  }
}

/** A device is placed only on an active node, which has registered its key; a pending one has none yet. */
function serverKeyOf(node: Node): string {
  if (!node.public_key)
    throw new AppError('unavailable', 'This device’s server is not ready yet. Try again in a few minutes.');
  return node.public_key;
}

/** The device, when its configuration may be given out: not while it is suspended (`suspendedConfigRefusal`). */
function activeOnly(device: Device): Device {
  const refusal = suspendedConfigRefusal(device);
  if (refusal) throw refusal;
  return device;
}
