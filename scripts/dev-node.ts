/**
 * `make dev` runs one WireGuard node for real when it can: as root with wireguard-go, on an
 * interface `qw0` in this machine's network namespace, so a person can connect from another
 * device to WG_ENDPOINT (this machine's address, port 51820 by default).
 */
import { execFileSync } from 'node:child_process';
import os from 'node:os';

function has(tool: string): boolean {
  try {
    execFileSync('sh', ['-c', `command -v ${tool}`], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

function firstExternalIpv4(): string | undefined {
  for (const addresses of Object.values(os.networkInterfaces())) {
    for (const address of addresses ?? [])
      if (address.family === 'IPv4' && !address.internal && !address.address.startsWith('10.64.'))
        return address.address;
  }
  return undefined;
}

export type DevNode = { env: Record<string, string> } | { skipped: string };

export function prepareDevNode(env: NodeJS.ProcessEnv): DevNode {
  if (env.DEV_NODE === 'off') return { skipped: 'DEV_NODE=off' };
  if (process.getuid?.() !== 0) return { skipped: 'a WireGuard interface needs root' };
  if (!has('wg') || !has('wireguard-go'))
    return { skipped: 'wg or wireguard-go is missing (apt-get install wireguard-tools wireguard-go)' };
  const iface = env.WG_INTERFACE ?? 'qw0';
  try {
    // The interface answers only while its wireguard-go lives; a dead one is removed and made again.
    execFileSync('wg', ['show', iface], { stdio: 'ignore' });
  } catch {
    try {
      execFileSync('ip', ['link', 'delete', iface], { stdio: 'ignore' });
    } catch {
      // there was none
    }
    execFileSync('wireguard-go', [iface], { stdio: 'ignore' });
  }
  const host = firstExternalIpv4() ?? '127.0.0.1';
  const port = env.WG_LISTEN_PORT ?? '51820';
  return {
    env: {
      NODE_NAME: env.NODE_NAME ?? 'dev-node-1',
      NODE_REGION: env.NODE_REGION ?? 'eu-central',
      NODE_TAGS: env.NODE_TAGS ?? 'gaming',
      NODE_IP: env.NODE_IP ?? host,
      NODE_SSH_USER: env.NODE_SSH_USER ?? 'root',
      WG_INTERFACE: iface,
      WG_ENDPOINT: env.WG_ENDPOINT ?? `${host}:${port}`,
      WG_LISTEN_PORT: port,
      NODE_KEY_FILE: env.NODE_KEY_FILE ?? 'var/node.key',
    },
  };
}
