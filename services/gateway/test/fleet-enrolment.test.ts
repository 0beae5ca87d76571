import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connect, credsAuthenticator, type NatsConnection } from '@nats-io/transport-node';
import {
  captureLogs,
  createWireGuardLab,
  eventually,
  findProcesses,
  processExists,
  freePort,
  startTestBus,
  wireguardLabProblem,
  type TestBus,
  type WireGuardLab,
} from '@qw/testkit';
import { registerNodeRpc } from '@qw/contracts';
import { generateKeyPair, nodeSubnets, parseClientConfig, publicKeyFromPrivate, toWgSetconf } from '@qw/wireguard';
import { customerWithPlan, deviceAdded, deviceServices } from './support/products.ts';
import { Client, signUpConfirmed, startStack, type Stack } from './support/stack.ts';

/**
 * A server's life from the console on real processes: an operator adds it and gets a one-time
 * token and the install command; the command (scripts/node-install.sh, served by the gateway)
 * runs for a fresh network namespace "host" (the agent in this machine's namespace drives the
 * namespace's interface, as NATS and the gateway listen on loopback); the node comes up active
 * and a real client pings through it; the token's second use is refused; retiring it closes the
 * agent's bus connection and refuses its credentials within 5 s.
 */
const problem = await wireguardLabProblem();
if (problem) console.info(`fleet-enrolment: skipped because ${problem}`);

const run = promisify(execFile);
const repoRoot = fileURLToPath(new URL('../../../', import.meta.url));

let testBus: TestBus;
let stack: Stack;
let lab: WireGuardLab;
let configDir: string;
let admin: Client;
const name = `enrol-${randomBytes(3).toString('hex')}`;
const iface = `wge${randomBytes(3).toString('hex')}`;
let serverId: string;
let token: string;
let installCommand: string;
let control: string;
/** Every service's and the gateway's log at debug: no token or credential may show in it. */
const logs = captureLogs('fleet-enrolment', 'debug');

const agentPid = () => {
  const file = path.join(configDir, 'agent.pid');
  return existsSync(file) ? Number(readFileSync(file, 'utf8').trim()) : undefined;
};
const serverCard = async () =>
  ((await admin.call('GET', '/api/admin/servers')).data.servers as Array<Record<string, any>>).find(
    (s) => s.name === name,
  );
const connectAsNode = (creds: string, reconnect = false): Promise<NatsConnection> =>
  connect({
    servers: testBus.url,
    authenticator: credsAuthenticator(new TextEncoder().encode(creds)),
    tls: { caFile: testBus.caFile },
    reconnect,
    timeout: 2000,
  });

describe.skipIf(problem !== null)('enrolling a server from the console, then retiring it', () => {
  beforeAll(async () => {
    const port = await freePort();
    control = `http://127.0.0.1:${port}`;
    testBus = await startTestBus();
    stack = await startStack({
      label: 'enrol',
      adminEmails: ['ops@quietwire.test'],
      testBus,
      logger: (service) => logs.logger.child({ service }),
      gatewayEnv: { PUBLIC_URL: control },
      extra: (publicUrl, mailUrl) =>
        deviceServices(publicUrl, mailUrl, undefined, {
          BUS_IDENTITY_DIR: testBus.identityDir,
          NATS_URL: testBus.url,
          NATS_CA_FILE: testBus.caFile,
        }),
    });
    await stack.app.listen({ host: '127.0.0.1', port });
    lab = await createWireGuardLab();
    configDir = await mkdtemp(path.join(tmpdir(), 'qw-host-'));
    admin = await signUpConfirmed(stack, 'ops@quietwire.test', '198.51.100.91');
  }, 60_000);

  afterAll(async () => {
    const pid = configDir ? agentPid() : undefined;
    if (pid) {
      try {
        process.kill(pid, 'SIGTERM');
      } catch {
        // it had stopped
      }
    }
    await lab?.exec(lab.nodeNs, ['ip', 'link', 'delete', iface]).catch(() => undefined);
    await lab?.destroy();
    await stack?.stop();
    if (configDir) await rm(configDir, { recursive: true, force: true });
  });

  it('adds a pending server with a one-time token and the one-line install command; audited without the token', async () => {
    const body = {
      name,
      region: 'europe',
      city: 'Frankfurt',
      endpoint: `${lab.nodeUnderlay}:51820`,
      tags: ['gaming'],
      capacity: 50,
      ssh_user: 'root',
    };
    const customer = await customerWithPlan(stack, 'nosy@example.com');
    expect((await customer.call('POST', '/api/admin/servers', body)).statusCode).toBe(403);

    const added = await admin.call('POST', '/api/admin/servers', body);
    expect(added.statusCode, added.body).toBe(201);
    expect(added.headers['cache-control']).toBe('no-store');
    const { server, enrolment } = added.data;
    expect(server).toMatchObject({
      name,
      region: 'europe',
      city: 'Frankfurt',
      ip: lab.nodeUnderlay,
      status: 'pending',
      capacity: 50,
      reachable: false,
    });
    serverId = server.id;
    token = enrolment.token;
    expect(token).toMatch(/^[A-Za-z0-9_-]{43,}$/);
    const ttl = Date.parse(enrolment.expires_at) - Date.now();
    expect(ttl).toBeGreaterThan(3590_000);
    expect(ttl).toBeLessThanOrEqual(3600_000);
    installCommand = enrolment.install_command;
    expect(installCommand).toBe(
      `curl -fsSL ${control}/node-install.sh | sudo bash -s -- --token ${token} --control ${control}`,
    );
    const script = await fetch(`${control}/node-install.sh`);
    expect(script.headers.get('content-type')).toContain('text/x-shellscript');
    expect(await script.text()).toContain('set -euo pipefail');

    const again = await admin.call('POST', '/api/admin/servers', { ...body, city: 'Paris' });
    expect(again.statusCode).toBe(409);
    expect(again.data.error.code).toBe('name_taken');

    const audit = await admin.call('GET', '/api/admin/audit');
    const entry = audit.data.rows.find((row: { kind: string }) => row.kind === 'node.added');
    expect(entry).toMatchObject({ target: name });
    expect(JSON.stringify(audit.data)).not.toContain(token);
  });

  it('enrols the host with the real install script: it comes up active and a real client pings through it', async () => {
    // The operator's line as shown, without sudo (the tests run as root), with the test host's options.
    const line = `${installCommand.replace('| sudo bash', '| bash')} --no-systemd --netns ${lab.nodeNs} --interface ${iface} --config-dir ${configDir} --agent-dir ${repoRoot} --node ${process.execPath}`;
    const installed = await run('bash', ['-c', `set -o pipefail; ${line}`], {
      env: { PATH: process.env.PATH ?? '/usr/bin:/bin' },
      timeout: 60_000,
    });
    expect(installed.stdout).toContain(`enrolled as ${name} (europe, Frankfurt)`);
    expect(installed.stdout).toMatch(/interface \S+ uses (kernel WireGuard|wireguard-go)/);
    for (const file of ['node.env', 'node.creds', 'node.key', 'nats-ca.pem'])
      expect(statSync(path.join(configDir, file)).mode & 0o777, file).toBe(0o600);
    const env = readFileSync(path.join(configDir, 'node.env'), 'utf8');
    expect(env).toContain(`NODE_NAME=${name}`);
    expect(env).toContain('NODE_REGION=europe');
    expect(env).toContain('NODE_TAGS=gaming');
    expect(env).toContain(`WG_ENDPOINT=${lab.nodeUnderlay}:51820`);
    expect(env).not.toContain(token);

    const server = await eventually(
      async () => {
        const card = await serverCard();
        return card?.status === 'active' ? card : undefined;
      },
      30_000,
      200,
    );
    expect(server).toMatchObject({ region: 'europe', city: 'Frankfurt', tags: ['gaming'], capacity: 50 });
    // The key was made on the host: the interface carries it, and only its public half was registered.
    const privateKey = readFileSync(path.join(configDir, 'node.key'), 'utf8').trim();
    const onInterface = (await lab.exec(lab.nodeNs, ['wg', 'show', iface, 'public-key'])).trim();
    expect(onInterface).toBe(publicKeyFromPrivate(privateKey));
    const registered = await stack.services
      .provisioning!.db.selectFrom('nodes')
      .select(['public_key', 'enrolled_at'])
      .where('id', '=', serverId)
      .executeTakeFirstOrThrow();
    expect(registered.public_key).toBe(onInterface);
    expect(registered.enrolled_at).not.toBeNull();

    const owner = await customerWithPlan(stack, 'erin@example.com');
    const device = await deviceAdded(owner, { name: 'Erin laptop', platform: 'linux' });
    expect(device.node).toMatchObject({ id: serverId, city: 'Frankfurt' });
    const config = await owner.call('GET', `/api/device/${device.id}/config`);
    expect(config.statusCode).toBe(200);
    expect(config.body).toContain(`Endpoint = ${lab.nodeUnderlay}:51820`);
    expect(config.body).toContain(`PublicKey = ${onInterface}`);
    const subnets = nodeSubnets(0);
    const ipv4 = parseClientConfig(config.body).addresses.find((a) => !a.includes(':'))!;
    await lab.connectClient(toWgSetconf(config.body), ipv4, subnets.ipv4Cidr);
    expect(await eventually(() => lab.ping(subnets.nodeIpv4), 20_000, 200)).toBe(true);

    const retire = await admin.call('POST', `/api/admin/servers/${serverId}/retire`);
    expect(retire.statusCode).toBe(409);
    expect(retire.data.error).toMatchObject({
      code: 'node_not_empty',
      message: 'Drain it first: 1 device is still on it.',
    });
    expect((await owner.call('DELETE', `/api/devices/${device.id}`)).statusCode).toBeLessThan(300);
  }, 120_000);

  it('refuses the token a second time, and a token it never gave', async () => {
    const host = new Client(stack.app, '192.0.2.44');
    const second = await host.call('POST', '/api/nodes/enrol', { token });
    expect(second.statusCode).toBe(409);
    expect(second.data.error.code).toBe('token_used');
    const unknown = await host.call('POST', '/api/nodes/enrol', { token: randomBytes(32).toString('base64url') });
    expect(unknown.statusCode).toBe(401);
    expect(unknown.data.error.code).toBe('invalid_token');
    const fresh = await admin.call('POST', `/api/admin/servers/${serverId}/enrolment`);
    expect(fresh.statusCode).toBe(409);
  });

  it('limits failed enrolments per client address, and logs no token or credential anywhere', async () => {
    const guesser = new Client(stack.app, '192.0.2.60');
    const guess = () => guesser.call('POST', '/api/nodes/enrol', { token: randomBytes(32).toString('base64url') });
    for (let attempt = 0; attempt < 10; attempt++) expect((await guess()).statusCode).toBe(401);
    const limited = await guess();
    expect(limited.statusCode).toBe(429);
    expect(limited.data.error.code).toBe('rate_limited');
    const other = await new Client(stack.app, '192.0.2.61').call('POST', '/api/nodes/enrol', { token });
    expect(other.data.error.code).toBe('token_used');

    const text = logs.text();
    expect(text.length).toBeGreaterThan(0);
    expect(text).not.toContain(token);
    const creds = readFileSync(path.join(configDir, 'node.creds'), 'utf8');
    const seed = /SU[A-Z0-9]{56}/.exec(creds)![0];
    expect(text).not.toContain(seed);
    const agentLog = readFileSync(path.join(configDir, 'agent.log'), 'utf8');
    expect(agentLog).not.toContain(token);
    expect(agentLog).not.toContain(seed);
  });

  it('gives a pending server a new token that voids the old one, lets exactly one of two hosts enrol with it, and retires it', async () => {
    const added = await admin.call('POST', '/api/admin/servers', {
      name: `${name}-b`,
      region: 'asia',
      city: 'Singapore',
      endpoint: 'vpn-b.example.net:51820',
      tags: [],
      capacity: 10,
    });
    expect(added.statusCode, added.body).toBe(201);
    const id = added.data.server.id;
    const first = added.data.enrolment.token;
    const renewed = await admin.call('POST', `/api/admin/servers/${id}/enrolment`);
    expect(renewed.statusCode).toBe(200);
    expect(renewed.data.install_command).toContain(`--token ${renewed.data.token} `);
    const old = await new Client(stack.app, '192.0.2.50').call('POST', '/api/nodes/enrol', { token: first });
    expect(old.data.error.code).toBe('invalid_token');

    // Two hosts at once with the same token: the first to lock it enrols, the other finds it used.
    const [a, b] = await Promise.all(
      ['192.0.2.51', '192.0.2.52'].map((address) =>
        new Client(stack.app, address).call('POST', '/api/nodes/enrol', { token: renewed.data.token }),
      ),
    );
    expect([a!.statusCode, b!.statusCode].sort()).toEqual([200, 409]);
    const answer = (a!.statusCode === 200 ? a : b)!.data;
    expect(answer).toMatchObject({
      node: {
        name: `${name}-b`,
        region: 'asia',
        city: 'Singapore',
        endpoint: 'vpn-b.example.net:51820',
        listen_port: 51820,
      },
      bus: { url: testBus.url, namespace: '' },
    });
    expect(answer.bus.creds).toContain('BEGIN NATS USER JWT');
    expect(answer.bus.ca).toContain('BEGIN CERTIFICATE');

    // Retired while pending: its credential is revoked (the bus refuses it), its card says so.
    const creds = answer.bus.creds as string;
    await (await connectAsNode(creds)).close();
    const retired = await admin.call('POST', `/api/admin/servers/${id}/retire`);
    expect(retired.statusCode, retired.body).toBe(200);
    expect(retired.data).toMatchObject({ status: 'retired', draining: true });
    await expect(connectAsNode(creds)).rejects.toThrow(/authori[sz]ation|revoked/i);
    expect((await admin.call('POST', `/api/admin/servers/${id}/enrolment`)).statusCode).toBe(409);
    // Retiring it again changes nothing.
    expect((await admin.call('POST', `/api/admin/servers/${id}/retire`)).data.status).toBe('retired');
  });

  it('retires it: the agent is disconnected and its credentials refused within 5 s, without a restart', async () => {
    const creds = readFileSync(path.join(configDir, 'node.creds'), 'utf8');
    const logFile = path.join(configDir, 'agent.log');
    const logBefore = readFileSync(logFile, 'utf8').length;
    // A second connection with the node's credentials, to see the server close it.
    const probe = await connectAsNode(creds);
    const probeClosed = probe.closed();

    const startedAt = Date.now();
    const retired = await admin.call('POST', `/api/admin/servers/${serverId}/retire`);
    expect(retired.statusCode, retired.body).toBe(200);
    expect(retired.data).toMatchObject({ status: 'retired', draining: true, reachable: false });
    await probeClosed;
    await eventually(() => readFileSync(logFile, 'utf8').slice(logBefore).includes('"nats":"disconnect"'), 5_000, 50);
    const refused = await connectAsNode(creds).then(
      async (nc) => {
        await nc.close();
        return false;
      },
      (error: Error) => /authori[sz]ation|revoked/i.test(error.message),
    );
    const elapsed = Date.now() - startedAt;
    expect(refused).toBe(true);
    expect(elapsed).toBeLessThan(5000);
    // The agent still runs (nothing was restarted); it is only refused.
    expect(() => process.kill(agentPid()!, 0)).not.toThrow();

    const audit = await admin.call('GET', '/api/admin/audit');
    expect(audit.data.rows.find((row: { kind: string }) => row.kind === 'node.retired')).toMatchObject({
      target: name,
      details: { credentials_revoked: 1 },
    });
    const again = await new Client(stack.app, '192.0.2.45').call('POST', '/api/nodes/enrol', { token });
    expect(again.statusCode).toBe(409);

    // Even with bus credentials issued some other way (the operator's script), a retired node may not register.
    const { rpc } = await stack.connectNode(name);
    const registration = {
      region: 'europe',
      endpoint: `${lab.nodeUnderlay}:51820`,
      public_key: generateKeyPair().publicKey,
      ip: lab.nodeUnderlay,
      tags: [],
    };
    await expect(
      rpc.request(registerNodeRpc, registration, undefined, { params: { node: name } }),
    ).rejects.toMatchObject({ code: 'forbidden' });
  }, 30_000);

  it('stopped while retired (its bus refused), the agent ends its resolver before it exits', async () => {
    // The agent's own unbound: its child process (found by parent, as other tests' agents may run
    // one from the same folder).
    const pid = agentPid()!;
    const children = await eventually(() => {
      const found = findProcesses(({ parent, argv }) => parent === pid && (argv[0] ?? '').endsWith('unbound'));
      return found.length > 0 ? found : undefined;
    }, 5_000);
    process.kill(pid, 'SIGTERM');
    // The agent's own limit on a stop is 10 s, after which it exits anyway.
    await eventually(() => !processExists(pid), 15_000, 50);
    expect(children.filter(processExists)).toEqual([]);
  }, 30_000);
});
