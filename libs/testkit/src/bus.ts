import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { jetstreamManager } from '@nats-io/jetstream';
import { connect } from '@nats-io/transport-node';
import { busAccess, nodeBusAccess, nodeUser, operatorUser, type BusPrincipal } from '@qw/contracts';
import {
  type BusConnection,
  connectBus,
  ensureNatsCertificates,
  generateCallerKeyPair,
  natsPermissions,
  natsServerConfig,
  type NatsTlsFiles,
  type NatsUser,
} from '@qw/platform/bus';
import { createLogger, type Logger } from '@qw/platform/logger';
import { freePort } from './nats.ts';
import { serverProcess } from './processes.ts';

export type BusCredentials = { user: string; password: string };

/** Connection settings of one process on a test bus, as its environment names them. */
export type BusEnv = { NATS_URL: string; NATS_USER: string; NATS_PASSWORD: string; NATS_CA_FILE: string };

export type TestBus = {
  url: string;
  /** The test CA that signed the server's certificate: every client connects over TLS with it. */
  caFile: string;
  /** Everything allowed: for tests that inspect streams or play an attacker's raw client. */
  admin: BusCredentials;
  credentials(user: string): BusCredentials;
  /** The environment of the gateway or a backend service. */
  env(principal: BusPrincipal): BusEnv;
  /** Gives a node agent its own user (the server reloads its configuration) and answers its environment. */
  addNode(name: string): Promise<BusEnv>;
  /**
   * A process's connection as `user` (the admin's, a service's, the gateway's or an added node's),
   * over TLS with the test CA, as the platform connects; `name` is what the server calls it.
   */
  connect(user: string, name?: string, logger?: Logger): Promise<BusConnection>;
  stop(): Promise<void>;
};

/**
 * The keys every test process shares: the gateway stack signs caller tokens with the private
 * half and the services it launches verify them with the public half, as in production.
 */
export const testCallerKeys = generateCallerKeyPair();

let testCertificates: NatsTlsFiles | undefined;

/** The test CA and the certificate of every test NATS server (127.0.0.1, localhost), made once per process. */
export function testNatsCertificates(): NatsTlsFiles {
  if (!testCertificates) {
    const dir = mkdtempSync(path.join(tmpdir(), 'qw-nats-tls-'));
    // The servers that use them end with this process; so does the folder (one per test file otherwise piles up).
    process.once('exit', () => rmSync(dir, { recursive: true, force: true }));
    testCertificates = ensureNatsCertificates(dir, { days: 2 });
  }
  return testCertificates;
}

/**
 * A NATS server of the test's own with authentication on and the product's permissions
 * (libs/contracts bus-access.ts): one user per service, the gateway, and each node added.
 */
export async function startTestBus(binary = process.env.NATS_SERVER_BIN ?? '/usr/sbin/nats-server'): Promise<TestBus> {
  const port = await freePort();
  const dir = await mkdtemp(path.join(tmpdir(), 'qw-bus-'));
  const configFile = path.join(dir, 'nats.conf');
  const url = `nats://127.0.0.1:${port}`;
  const passwords = new Map<string, string>();
  const password = (user: string) => {
    if (!passwords.has(user)) passwords.set(user, randomBytes(18).toString('base64url'));
    return passwords.get(user)!;
  };
  const admin = { user: operatorUser, password: password(operatorUser) };
  const tls = testNatsCertificates();
  const nodes: string[] = [];

  const writeConfig = () => {
    const users: NatsUser[] = [
      { user: admin.user, password: { value: admin.password }, permissions: 'all' },
      ...(Object.keys(busAccess) as BusPrincipal[]).map((principal) => ({
        user: principal,
        password: { value: password(principal) },
        permissions: natsPermissions(principal, busAccess[principal]),
      })),
      ...nodes.map((node) => ({
        user: nodeUser(node),
        password: { value: password(nodeUser(node)) },
        permissions: natsPermissions(nodeUser(node), nodeBusAccess(node)),
      })),
    ];
    return writeFile(
      configFile,
      natsServerConfig({ listen: `127.0.0.1:${port}`, storeDir: path.join(dir, 'store'), users, tls }),
      { mode: 0o600 },
    );
  };
  const connectAs = (credentials: BusCredentials) =>
    connect({
      servers: url,
      user: credentials.user,
      pass: credentials.password,
      reconnect: false,
      timeout: 1000,
      tls: { caFile: tls.caFile },
    });

  await writeConfig();
  const server = serverProcess(
    () => spawn(binary, ['-c', configFile], { stdio: 'ignore' }),
    async () => {
      const nc = await connectAs(admin);
      try {
        await jetstreamManager(nc).then((jsm) => jsm.getAccountInfo());
      } finally {
        await nc.close();
      }
    },
  );
  await server.start();

  const credentials = (user: string) => ({ user, password: password(user) });
  const env = (user: string): BusEnv => ({
    NATS_URL: url,
    NATS_USER: user,
    NATS_PASSWORD: password(user),
    NATS_CA_FILE: tls.caFile,
  });
  return {
    url,
    caFile: tls.caFile,
    admin,
    credentials,
    env,
    async addNode(name) {
      if (!nodes.includes(name)) {
        nodes.push(name);
        await writeConfig();
        server.signal('SIGHUP');
        // The reload is asynchronous: wait until the new user can connect.
        const deadline = Date.now() + 10_000;
        for (;;) {
          try {
            await (await connectAs(credentials(nodeUser(name)))).close();
            break;
          } catch (error) {
            if (Date.now() > deadline) throw error;
            await new Promise((resolve) => setTimeout(resolve, 50));
          }
        }
      }
      return env(nodeUser(name));
    },
    connect(
      user,
      name = `test-${user}`,
      logger = createLogger({ service: name, level: process.env.TEST_LOG_LEVEL ?? 'silent' }),
    ) {
      return connectBus({
        url,
        name,
        namespace: '',
        logger,
        user,
        password: password(user),
        caFile: tls.caFile,
      });
    },
    async stop() {
      await server.halt('SIGTERM');
      await rm(dir, { recursive: true, force: true });
    },
  };
}
