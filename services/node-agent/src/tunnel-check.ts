import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { Logger } from 'pino';
import type { TunnelCheckAnswer } from '@qw/contracts';
import { formatIpv6, parseCidr, parseIpv4, parseIpv6, tunnelCheckAddresses, type WgDumpPeer } from '@qw/wireguard';

/**
 * "Am I protected?" (issue #25) on the node: an HTTP answer on the tunnel-only check addresses
 * saying which peer a request came from. Nothing is kept: each answer is read from the interface
 * (`wg show <iface> dump`) at the moment it is asked, and the server writes no log of requests.
 */
export type TunnelCheckSettings = {
  iface: string;
  node: string;
  /** Where it listens: the check addresses (held on the WireGuard interface). */
  addresses: string[];
  port: number;
  /** Origins whose pages may read the answer (CORS): the site's own. */
  origins: string[];
  resolvers: string[];
};

/** The peer whose allowed IPs hold `source` (a tunnel address), as the answer says it. */
export function tunnelCheckAnswer(
  source: string,
  peers: readonly Pick<WgDumpPeer, 'publicKey' | 'allowedIps'>[],
  settings: Pick<TunnelCheckSettings, 'node' | 'resolvers'>,
): TunnelCheckAnswer {
  const address = hostAddress(source);
  const peer = address === null ? undefined : peers.find((p) => p.allowedIps.some((cidr) => holds(cidr, address)));
  return {
    through_tunnel: peer !== undefined,
    public_key: peer?.publicKey ?? null,
    node: settings.node,
    resolvers: settings.resolvers,
  };
}

/** CORS for the site's own pages only: any other page may not read who the visitor is. */
export function corsHeaders(origin: string | undefined, origins: readonly string[]): Record<string, string> {
  if (!origin || !origins.includes(origin)) return { vary: 'Origin' };
  return {
    vary: 'Origin',
    'access-control-allow-origin': origin,
    'access-control-allow-methods': 'GET',
    // Chrome's Private Network Access asks this of a page reaching a private address.
    'access-control-allow-private-network': 'true',
    'access-control-max-age': '600',
  };
}

type Host = { family: 4; value: bigint } | { family: 6; value: bigint };

function hostAddress(source: string): Host | null {
  const text = source.replace(/^::ffff:(?=\d+\.\d+\.\d+\.\d+$)/i, '').replace(/%.*$/, '');
  const v4 = parseIpv4(text);
  if (v4 !== null) return { family: 4, value: BigInt(v4) };
  const v6 = parseIpv6(text);
  return v6 === null ? null : { family: 6, value: v6 };
}

function holds(cidrText: string, host: Host): boolean {
  const cidr = parseCidr(cidrText);
  if (!cidr || cidr.family !== host.family) return false;
  const bits = host.family === 4 ? 32 : 128;
  const shift = BigInt(bits - cidr.prefixLength);
  return host.value >> shift === cidr.address >> shift;
}

/** The /48 a node's IPv6 tunnel network is in (its ULA prefix), from `ipv6_cidr`. */
export function ulaPrefixOf(ipv6Cidr: string): string {
  const cidr = parseCidr(ipv6Cidr);
  if (cidr?.family !== 6) throw new Error('not an IPv6 network');
  return `${formatIpv6((cidr.address >> 80n) << 80n)}/48`;
}

/**
 * Runs the check's server through the same command prefix as `wg` and `ip` (so it listens where the
 * interface is, in a namespace too), as a child process the agent stops with itself. Its stdin is a
 * pipe the agent never writes to: when the agent dies without stopping it (killed outright, a crash),
 * the pipe closes and the server ends too, instead of holding the check's port for the next agent.
 */
export async function startTunnelCheck(
  prefix: string,
  settings: TunnelCheckSettings,
  logger: Logger,
): Promise<{ stop(): Promise<void> }> {
  const server = fileURLToPath(new URL('./tunnel-check-server.ts', import.meta.url));
  const words = prefix.trim() ? prefix.trim().split(/\s+/) : [];
  const [file, ...args] = [...words, process.execPath, '--import', 'tsx', server];
  const child: ChildProcess = spawn(file!, args, {
    env: { ...process.env, QW_TUNNEL_CHECK: JSON.stringify(settings) },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => {
    stderr = (stderr + chunk.toString()).slice(-2000);
  });
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('the tunnel check did not start within 20 s')), 20_000);
    child.stdout?.on('data', (chunk: Buffer) => {
      if (chunk.toString().includes('listening')) {
        clearTimeout(timer);
        resolve();
      }
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`the tunnel check stopped (exit ${code}): ${stderr.trim().split('\n').at(-1) ?? ''}`));
    });
  });
  child.on('exit', (code, signal) => {
    if (signal !== 'SIGTERM') logger.warn({ code, signal }, 'tunnel check stopped');
  });
  return {
    stop: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null || child.signalCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
      }),
  };
}

/**
 * Puts the check addresses on the interface and starts the server; a node whose check cannot start
 * (port taken, no tsx) still serves its peers, and says so in its log.
 */
export async function serveTunnelCheck(
  host: { iface: string; ip(args: string[]): Promise<string> },
  config: { NODE_NAME: string; WG_COMMAND_PREFIX: string; TUNNEL_CHECK_PORT: number; TUNNEL_CHECK_ORIGINS: string },
  addressing: { node_ipv4: string; node_ipv6: string; ipv6_cidr: string },
  logger: Logger,
): Promise<{ stop(): Promise<void> } | undefined> {
  if (config.TUNNEL_CHECK_PORT === 0) return undefined;
  const check = tunnelCheckAddresses(ulaPrefixOf(addressing.ipv6_cidr));
  const addresses = [check.ipv4];
  await host.ip(['address', 'replace', `${check.ipv4}/32`, 'dev', host.iface]);
  try {
    await host.ip(['-6', 'address', 'replace', `${check.ipv6}/128`, 'dev', host.iface, 'nodad']);
    addresses.push(check.ipv6);
  } catch {
    logger.warn('IPv6 check address not set (IPv6 may be off on this host); the IPv4 one answers');
  }
  try {
    return await startTunnelCheck(
      config.WG_COMMAND_PREFIX,
      {
        iface: host.iface,
        node: config.NODE_NAME,
        addresses,
        port: config.TUNNEL_CHECK_PORT,
        origins: config.TUNNEL_CHECK_ORIGINS.split(',')
          .map((origin) => origin.trim())
          .filter(Boolean),
        resolvers: [addressing.node_ipv4, addressing.node_ipv6],
      },
      logger,
    );
  } catch (error) {
    logger.warn({ err: error }, 'tunnel check not started; "Am I protected?" cannot reach this node');
    return undefined;
  }
}
