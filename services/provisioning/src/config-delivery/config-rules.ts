import { createHash, randomBytes } from 'node:crypto';
import { AppError } from '@qw/contracts';
import { allowedIpsFor, nodeSubnets, resolverAddresses } from '@qw/wireguard';
import type { DevicePrivacy } from '../devices/device-privacy-rules.ts';
import { keysRevoked } from '../keys/key-rules.ts';

/** A download link (the file, or its QR code) works once, within this many seconds. */
export const configLinkSeconds = 60;

export const newLinkToken = () => randomBytes(32).toString('base64url');

/** Links are kept by their hash only: the database never holds a token that would work. */
export const hashLinkToken = (token: string) => createHash('sha256').update(token).digest('base64url');

type KeyState = { public_key: string | null; private_key_sealed: string | null; node_id: string | null };

/**
 * A suspended device has no peer on its node, so its configuration would not connect: neither
 * the file, its links nor the browser's peer information are given until it is active again.
 */
export function suspendedConfigRefusal(device: { is_active: boolean }): AppError | null {
  return device.is_active
    ? null
    : new AppError(
        'conflict',
        'This device is suspended, so its configuration is not available. It can be downloaded again once the device is active.',
      );
}

/**
 * Why the service cannot write this device's configuration file, or null when it can: its keys
 * were revoked, or its private key was made in the browser (only that browser has it).
 */
export function configRefusal(device: KeyState): AppError | null {
  if (!device.public_key) return keysRevoked();
  if (!device.private_key_sealed || !device.node_id) {
    return new AppError(
      'conflict',
      'This device was set up with a key made in your browser, so only that browser has its private key. Use "Request key" to make a new one.',
    );
  }
  return null;
}

/** What the configuration mail's job says, checked at sending time: nothing goes for a key replaced since. */
export function configMailCurrent(
  device: { private_key_sealed: string | null; node_id: string | null; key_created_at: Date | string | null },
  payload: Record<string, unknown>,
): boolean {
  if (!device.private_key_sealed || !device.node_id || !device.key_created_at) return false;
  return new Date(device.key_created_at).toISOString() === payload.keyCreatedAt;
}

/**
 * The two lines of a config that follow the device's tunnel privacy: DNS names its node's resolver
 * at the address of its blocking mask (the node's own tunnel addresses with none), AllowedIPs its
 * split tunnel, which always keeps that resolver and the node's subnet inside the tunnel.
 * `dnsOverride` (VPN_DNS) is for a deployment whose nodes run no resolver: it replaces the DNS
 * line, and blocking then does nothing.
 */
export function tunnelLinesOf(
  device: DevicePrivacy,
  node: { node_index: number },
  dnsOverride: readonly string[],
): { dns: string[]; allowedIps: string[] } {
  const subnets = nodeSubnets(node.node_index);
  const resolver = resolverAddresses(subnets, device.blocking_mask);
  return {
    dns: dnsOverride.length > 0 ? [...dnsOverride] : [resolver.ipv4, resolver.ipv6],
    allowedIps: allowedIpsFor(
      { preset: device.split_tunnel, routes: device.custom_routes },
      { nodeIpv4Cidr: subnets.ipv4Cidr, nodeIpv6Cidr: subnets.ipv6Cidr, resolver },
    ),
  };
}
