import { spawn, type ChildProcess } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { blockingMaskOf, type AdminServer } from '@qw/contracts';
import { captureLogs, eventually, wireguardLabProblem } from '@qw/testkit';
import { formatIpv6, parseClientConfig, parseCidr, resolverAddresses } from '@qw/wireguard';
import { readBlocklists, shippedBlocklistDir } from '../../node-agent/src/resolver/blocklists.ts';
import { LabNode } from './support/nodes.ts';
import { type Client, signUpConfirmed, startStack, type Stack } from './support/stack.ts';
import { customerWithPlan, deviceAdded, deviceServices } from './support/products.ts';

/**
 * Tunnel privacy on real WireGuard (issue #25): the node agent runs unbound in the node's
 * namespace on its tunnel addresses and the 31 policy addresses; a real client (wireguard-go in
 * its own namespace, a device's downloaded config) asks it through the tunnel with dig. There is no
 * internet here, so the agent forwards (NODE_RESOLVER_UPSTREAM) to a second unbound inside the
 * node's namespace that stands in for the world: it knows www.quietwire-lab.example and the first
 * name of the shipped ads list. Afterwards the resolver's folder and the agent's log hold no name
 * that was asked.
 */
const unbound = '/usr/sbin/unbound';
const problem =
  (await wireguardLabProblem()) ??
  (existsSync(unbound) && existsSync('/usr/bin/dig')
    ? null
    : 'the resolver test needs unbound and dig (scripts/ensure-system-packages.sh installs them)');
if (problem) console.info(`node-resolver-tunnel: skipped because ${problem}`);

const site = 'www.quietwire-lab.example';
const upstreamAddress = '127.0.0.53';
let stack: Stack;
let node: LabNode;
let owner: Client;
let admin: Client;
let resolverDir: string;
let upstreamDir: string;
let upstream: ChildProcess | undefined;
let adsName: string;
let nodeAddresses: { nodeIpv4: string; nodeIpv6: string };
let written: Map<string, string>;
const logs = captureLogs('node-agent', 'info');

type Answer = { status: string; addresses: string[] };

/** One dig from the client's namespace (`tries` of 2 s each): the status and the A records. */
async function dig(server: string, name: string, tries = 2): Promise<Answer> {
  try {
    const out = await node.lab.exec(node.lab.clientNs, [
      'dig',
      `+tries=${tries}`,
      '+time=2',
      '+noall',
      '+comments',
      '+answer',
      `@${server}`,
      name,
      'A',
    ]);
    const status = /status: ([A-Z]+)/.exec(out)?.[1] ?? 'NO_STATUS';
    const addresses = [...out.matchAll(/\sIN\s+A\s+(\S+)\s*$/gm)].map((m) => m[1]!);
    return { status, addresses };
  } catch {
    return { status: 'NO_ANSWER', addresses: [] };
  }
}

async function card(): Promise<AdminServer | undefined> {
  const answer = await admin.call('GET', '/api/admin/servers');
  return (answer.data.servers as AdminServer[]).find((s) => s.name === 'lab-resolver-1');
}

/** Every file under `dir` with its SHA-256. */
async function filesOf(dir: string): Promise<Map<string, string>> {
  const files = new Map<string, string>();
  for (const entry of await readdir(dir, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile()) continue;
    const file = path.join(entry.parentPath, entry.name);
    files.set(
      path.relative(dir, file),
      createHash('sha256')
        .update(await readFile(file))
        .digest('hex'),
    );
  }
  return files;
}

describe.skipIf(problem !== null)("the node's own resolver on real WireGuard", () => {
  beforeAll(async () => {
    adsName = (await readBlocklists(shippedBlocklistDir)).ads[0]!;
    stack = await startStack({ label: 'resolver', adminEmails: ['ops@quietwire.test'], extra: deviceServices });
    resolverDir = await mkdtemp(path.join(tmpdir(), 'qw-resolver-'));
    upstreamDir = await mkdtemp(path.join(tmpdir(), 'qw-upstream-'));
    node = await LabNode.start(
      stack,
      'lab-resolver-1',
      {
        NODE_IP: '203.0.113.53',
        NODE_RESOLVER: unbound,
        NODE_RESOLVER_UPSTREAM: upstreamAddress,
        NODE_RESOLVER_DIR: resolverDir,
      },
      logs.logger,
    );
    // The stand-in for the internet, inside the node's namespace on its loopback.
    await writeFile(
      path.join(upstreamDir, 'upstream.conf'),
      [
        'server:',
        `  directory: "${upstreamDir}"`,
        '  username: ""',
        '  chroot: ""',
        '  use-syslog: no',
        '  logfile: ""',
        `  interface: ${upstreamAddress}`,
        '  interface-automatic: no',
        '  so-reuseport: no',
        '  local-zone: "quietwire-lab.example." static',
        `  local-data: "${site}. A 192.0.2.10"`,
        `  local-data: "${adsName}. A 192.0.2.20"`,
        `  local-data: "cdn.${adsName}. A 192.0.2.21"`,
        '',
      ].join('\n'),
    );
    upstream = spawn('ip', ['netns', 'exec', node.lab.nodeNs, unbound, '-d', '-p', '-c', 'upstream.conf'], {
      cwd: upstreamDir,
      stdio: 'ignore',
    });
    admin = await signUpConfirmed(stack, 'ops@quietwire.test', '198.51.100.79');
    owner = await customerWithPlan(stack, 'rita@example.com');
    const device = await deviceAdded(owner, { name: 'Rita laptop', platform: 'linux' });
    await eventually(async () => (await node.peers()).includes(device.public_key), 10_000);
    const config = (await owner.call('GET', `/api/device/${device.id}/config`)).body;
    await node.connect(config);
    // As wg-quick does for AllowedIPs 0.0.0.0/0 and ::/0: the policy addresses and IPv6 go through the tunnel too.
    const { clientNs, clientIface } = node.lab;
    const ipv6 = parseClientConfig(config).addresses.find((a) => a.includes(':'))!;
    await node.lab.exec(clientNs, ['ip', 'route', 'replace', '100.64.0.0/24', 'dev', clientIface]);
    await node.lab.exec(clientNs, ['ip', '-6', 'address', 'add', ipv6, 'dev', clientIface, 'nodad']);
    await node.lab.exec(clientNs, ['ip', '-6', 'route', 'replace', 'fd7a:5157:7769::/48', 'dev', clientIface]);
    const ipv4 = parseClientConfig(config)
      .addresses.find((a) => !a.includes(':'))!
      .split('/')[0]!;
    const v6 = parseCidr(ipv6)!;
    nodeAddresses = {
      nodeIpv4: ipv4.replace(/\.\d+\.\d+$/, '.0.1'),
      nodeIpv6: formatIpv6(((v6.address >> 64n) << 64n) + 1n),
    };
    expect(await eventually(() => node.ping(), 15_000, 100)).toBe(true);
    await eventually(async () => (await dig(nodeAddresses.nodeIpv4, site)).status === 'NOERROR', 20_000, 200);
    written = await filesOf(resolverDir);
  }, 120_000);

  afterAll(async () => {
    upstream?.kill('SIGTERM');
    await node?.stop();
    await stack?.stop();
    for (const dir of [resolverDir, upstreamDir]) if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('resolves through the tunnel; with "ads" on, a shipped ads name (and its subdomains) is NXDOMAIN and another name resolves', async () => {
    const plain = resolverAddresses(nodeAddresses, 0);
    const ads = resolverAddresses(nodeAddresses, blockingMaskOf(['ads']));
    expect(ads).toEqual({ ipv4: '100.64.0.1', ipv6: 'fd7a:5157:7769:ffff::1' });

    expect(await dig(plain.ipv4, site)).toEqual({ status: 'NOERROR', addresses: ['192.0.2.10'] });
    expect(await dig(plain.ipv4, adsName)).toEqual({ status: 'NOERROR', addresses: ['192.0.2.20'] });
    expect(await dig(plain.ipv6, adsName)).toEqual({ status: 'NOERROR', addresses: ['192.0.2.20'] });

    expect(await dig(ads.ipv4, adsName)).toEqual({ status: 'NXDOMAIN', addresses: [] });
    expect(await dig(ads.ipv4, `cdn.${adsName}`)).toEqual({ status: 'NXDOMAIN', addresses: [] });
    expect(await dig(ads.ipv6, adsName)).toEqual({ status: 'NXDOMAIN', addresses: [] });
    expect(await dig(ads.ipv4, site)).toEqual({ status: 'NOERROR', addresses: ['192.0.2.10'] });
    expect(await dig(ads.ipv6, site)).toEqual({ status: 'NOERROR', addresses: ['192.0.2.10'] });

    // Other categories leave ads alone; every mask with the ads bit blocks them.
    const others = resolverAddresses(nodeAddresses, blockingMaskOf(['trackers', 'malware', 'adult', 'gambling']));
    expect(await dig(others.ipv4, adsName)).toEqual({ status: 'NOERROR', addresses: ['192.0.2.20'] });
    const all = resolverAddresses(nodeAddresses, 31);
    expect(await dig(all.ipv4, adsName)).toEqual({ status: 'NXDOMAIN', addresses: [] });
    expect(await dig(plain.ipv4, `cdn.${adsName}`)).toEqual({ status: 'NOERROR', addresses: ['192.0.2.21'] });
  }, 60_000);

  it("listens on the node's tunnel and policy addresses only: its public address does not answer", async () => {
    const sockets = await node.lab.exec(node.lab.nodeNs, ['ss', '-Hlnup']);
    const local = sockets
      .split('\n')
      .filter((line) => line.includes('"unbound"'))
      .map((line) =>
        line
          .trim()
          .split(/\s+/)[3]!
          .replace(/:53$/, '')
          .replace(/^\[|\]$/g, ''),
      );
    expect(local).toContain(nodeAddresses.nodeIpv4);
    expect(local).toContain(nodeAddresses.nodeIpv6);
    expect(local).toContain('100.64.0.31');
    expect(local).toContain('fd7a:5157:7769:ffff::1f');
    const allowed = (address: string) =>
      address === upstreamAddress ||
      address === nodeAddresses.nodeIpv4 ||
      address === nodeAddresses.nodeIpv6 ||
      /^100\.64\.0\.([1-9]|[12][0-9]|3[01])$/.test(address) ||
      /^fd7a:5157:7769:ffff::([1-9a-f]|1[0-9a-f])$/.test(address);
    expect(local.filter((address) => !allowed(address))).toEqual([]);
    expect(local).toHaveLength(1 + 2 + 62);
    expect((await dig(node.lab.nodeUnderlay, site, 1)).status).toBe('NO_ANSWER');
  });

  it('reports the resolver answering; the console card shows it', async () => {
    const server = await eventually(async () => {
      const found = await card();
      return found?.resolver?.state === 'answering' ? found : undefined;
    }, 15_000);
    expect(server.resolver).toEqual({ state: 'answering', restarts: 0 });
  });

  it('starts the resolver again when it dies, and the card counts the restart', async () => {
    const pid = node.agent.resolver.pid!;
    expect(pid).toBeGreaterThan(0);
    process.kill(pid, 'SIGKILL');
    await eventually(() => node.agent.resolver.pid !== undefined && node.agent.resolver.pid !== pid, 10_000);
    expect(node.agent.resolver.restarts).toBe(1);
    await eventually(async () => (await dig(nodeAddresses.nodeIpv4, site)).status === 'NOERROR', 20_000, 200);
    const server = await eventually(async () => {
      const found = await card();
      return found?.resolver?.state === 'answering' && found.resolver.restarts === 1 ? found : undefined;
    }, 15_000);
    expect(server.resolver).toEqual({ state: 'answering', restarts: 1 });
  }, 45_000);

  it("keeps nothing: the resolver's folder is as the agent wrote it and no log line names what was asked", async () => {
    const secret = `n${randomBytes(6).toString('hex')}.quietwire-lab.example`;
    const ads = resolverAddresses(nodeAddresses, 1);
    expect((await dig(nodeAddresses.nodeIpv4, secret)).status).toBe('NXDOMAIN');
    expect((await dig(ads.ipv6, secret)).status).toBe('NXDOMAIN');
    expect((await dig(ads.ipv4, adsName)).status).toBe('NXDOMAIN');

    // The pid file changed with the restart (it holds a number); everything else is as written.
    const now = await filesOf(resolverDir);
    expect([...now.keys()].sort()).toEqual(['addresses.batch', 'blocklists.conf', 'unbound.conf', 'unbound.pid']);
    expect(await readFile(path.join(resolverDir, 'unbound.pid'), 'utf8')).toBe(`${node.agent.resolver.pid}\n`);
    now.delete('unbound.pid');
    written.delete('unbound.pid');
    expect(now).toEqual(written);
    for (const file of written.keys()) {
      const text = await readFile(path.join(resolverDir, file), 'utf8');
      expect(text).not.toContain(secret);
      expect(text).not.toContain('quietwire-lab');
    }
    const conf = await readFile(path.join(resolverDir, 'unbound.conf'), 'utf8');
    expect(conf).toMatch(/^\s*verbosity: 0$/m);
    expect(conf).toMatch(/^\s*log-queries: no$/m);
    expect(conf).toMatch(/^\s*log-replies: no$/m);
    const logged = logs.text();
    expect(logged).not.toContain('quietwire-lab');
    expect(logged).not.toContain(adsName);
    expect(node.agent.resolver.quietErrors).toBe(0);
  });
});
