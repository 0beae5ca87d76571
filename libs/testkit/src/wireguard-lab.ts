import { execFile, spawn } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { promisify } from 'node:util';

const run = promisify(execFile);

/** Whether this machine can run the lab: root, `ip`, `wg`, `wireguard-go` and /dev/net/tun. */
export async function wireguardLabProblem(): Promise<string | null> {
  if (process.getuid?.() !== 0) return 'the WireGuard lab needs root (network namespaces)';
  for (const tool of ['ip', 'wg', 'wireguard-go', 'ping']) {
    try {
      await run('sh', ['-c', `command -v ${tool}`]);
    } catch (error) {
      // `command -v` exits 1 (127 in some shells) for a tool that is not there. Anything else (the
      // shell not started at all on a loaded machine) is not a missing tool: the file fails with
      // it rather than skipping its tests (seen once: every test of a tunnel file skipped in a
      // full run on two loaded cores, the reason not recorded).
      const code = (error as { code?: unknown }).code;
      if (code !== 1 && code !== 127) throw error;
      return `the WireGuard lab needs ${tool} (scripts/ensure-system-packages.sh installs it)`;
    }
  }
  return null;
}

export type WireGuardLab = {
  /** Namespace of the server, with its WireGuard interface (no keys or peers yet: the node agent sets them). */
  nodeNs: string;
  nodeIface: string;
  /** Where clients reach the node: an address on the veth inside the lab. */
  nodeUnderlay: string;
  clientNs: string;
  clientIface: string;
  prefix: string;
  exec(ns: string, args: string[]): Promise<string>;
  /** Brings the client up from a wg-quick file stripped for `wg setconf`, with its tunnel address. */
  connectClient(setconf: string, address: string, route: string): Promise<void>;
  ping(target: string, timeoutSeconds?: number): Promise<boolean>;
  destroy(): Promise<void>;
};

/**
 * The third octet of the underlay of each lab this process holds. A lab's addresses live in its
 * own namespaces, so labs never clash on the network, but a test that compares two nodes'
 * endpoints (a moved device's new config) needs them to differ: two random octets of 250 were
 * once the same.
 */
const octetsInUse = new Set<number>();

function takeOctet(id: string): number {
  const start = parseInt(id.slice(0, 2), 16) % 250;
  for (let step = 0; step < 250; step++) {
    const octet = 1 + ((start + step) % 250);
    if (octetsInUse.has(octet)) continue;
    octetsInUse.add(octet);
    return octet;
  }
  throw new Error('more than 250 WireGuard labs at once in this process');
}

/**
 * Two network namespaces joined by a veth pair, with wireguard-go interfaces in each: a real
 * WireGuard server and a real client on one machine. All traffic stays inside the namespaces.
 */
export async function createWireGuardLab(): Promise<WireGuardLab> {
  const id = randomBytes(3).toString('hex');
  const nodeNs = `qwn-${id}`;
  const clientNs = `qwc-${id}`;
  const nodeIface = `wgn${id}`;
  const clientIface = `wgc${id}`;
  const octet = takeOctet(id);
  const nodeUnderlay = `10.231.${octet}.1`;
  const clientUnderlay = `10.231.${octet}.2`;
  const workDir = await mkdtemp(path.join(tmpdir(), 'qw-lab-'));
  const exec = async (ns: string, args: string[]) => (await run('ip', ['netns', 'exec', ns, ...args])).stdout;
  const ip = async (args: string[]) => void (await run('ip', args));

  await ip(['netns', 'add', nodeNs]);
  await ip(['netns', 'add', clientNs]);
  await ip(['link', 'add', `vn${id}`, 'type', 'veth', 'peer', 'name', `vc${id}`]);
  await ip(['link', 'set', `vn${id}`, 'netns', nodeNs]);
  await ip(['link', 'set', `vc${id}`, 'netns', clientNs]);
  await ip(['-n', nodeNs, 'address', 'add', `${nodeUnderlay}/24`, 'dev', `vn${id}`]);
  await ip(['-n', clientNs, 'address', 'add', `${clientUnderlay}/24`, 'dev', `vc${id}`]);
  for (const [ns, dev] of [
    [nodeNs, `vn${id}`],
    [clientNs, `vc${id}`],
  ] as const) {
    await ip(['-n', ns, 'link', 'set', dev, 'up']);
    await ip(['-n', ns, 'link', 'set', 'lo', 'up']);
  }
  // wireguard-go daemonizes itself; the interface lives until it is deleted.
  await exec(nodeNs, ['wireguard-go', nodeIface]);
  await exec(clientNs, ['wireguard-go', clientIface]);

  return {
    nodeNs,
    nodeIface,
    nodeUnderlay,
    clientNs,
    clientIface,
    prefix: `ip netns exec ${nodeNs}`,
    exec,
    async connectClient(setconf, address, route) {
      const file = path.join(workDir, `client-${randomBytes(3).toString('hex')}.conf`);
      await writeFile(file, setconf, { mode: 0o600 });
      await exec(clientNs, ['wg', 'setconf', clientIface, file]);
      await exec(clientNs, ['ip', 'address', 'flush', 'dev', clientIface]);
      await exec(clientNs, ['ip', 'address', 'add', address, 'dev', clientIface]);
      await exec(clientNs, ['ip', 'link', 'set', 'up', 'dev', clientIface]);
      await exec(clientNs, ['ip', 'route', 'replace', route, 'dev', clientIface]);
    },
    async ping(target, timeoutSeconds = 2) {
      try {
        await exec(clientNs, ['ping', '-c', '1', '-W', String(timeoutSeconds), target]);
        return true;
      } catch {
        return false;
      }
    },
    async destroy() {
      for (const [ns, iface] of [
        [nodeNs, nodeIface],
        [clientNs, clientIface],
      ] as const) {
        await exec(ns, ['ip', 'link', 'delete', iface]).catch(() => undefined);
      }
      await ip(['netns', 'delete', nodeNs]).catch(() => undefined);
      await ip(['netns', 'delete', clientNs]).catch(() => undefined);
      await rm(workDir, { recursive: true, force: true });
      octetsInUse.delete(octet);
      // wireguard-go exits when its interface is gone; make sure none is left behind.
      spawn('pkill', ['-f', `wireguard-go (${nodeIface}|${clientIface})`], { stdio: 'ignore' }).on(
        'error',
        () => undefined,
      );
    },
  };
}
