import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { jetstreamManager } from '@nats-io/jetstream';
import { connect } from '@nats-io/transport-node';
import { nodeUser, type BusPrincipal } from '@qw/contracts';
import {
  type BusConnection,
  connectBus,
  credsSigner,
  ensureNatsCertificates,
  generateCallerKeyPair,
  natsServerConfig,
  type NatsTlsFiles,
} from '@qw/platform/bus';
import { createLogger, type Logger } from '@qw/platform/logger';
import { issueTestBusUsers } from './bus-users.ts';
import { freePort } from './nats.ts';
import { serverProcess } from './processes.ts';

/** A user issued on a test bus: its name, its key (what a revocation names) and its `.creds` content. */
export type BusCredentials = { user: string; publicKey: string; creds: string };

/** Connection settings of one process on a test bus, as its environment names them. */
export type BusEnv = { NATS_URL: string; NATS_USER: string; NATS_CREDS: string; NATS_CA_FILE: string };

export type TestBus = {
  url: string;
  /** The test CA that signed the server's certificate: every client connects over TLS with it. */
  caFile: string;
  /** The bus's identity folder (keys.json, revocations.json): provisioning's BUS_IDENTITY_DIR. */
  identityDir: string;
  /** Everything allowed: for tests that inspect streams or play an attacker's raw client. */
  admin: BusCredentials;
  credentials(user: string): BusCredentials;
  /** The environment of the gateway or a backend service. */
  env(principal: BusPrincipal): BusEnv;
  /**
   * Issues a node agent its own user at run time (nothing about the server changes: the user's
   * JWT carries its permissions) and answers its environment; a node already added keeps its user.
   */
  addNode(name: string): Promise<BusEnv>;
  /**
   * Revokes the user's current key and pushes the account to the server, as the control plane
   * does: the server closes its connections and refuses it from then on. Answers once the server
   * applied it; `addNode` afterwards issues the node a new key.
   */
  revoke(user: string): Promise<void>;
  /**
   * A process's connection as `user` (the admin's, a service's, the gateway's or an added node's),
   * over TLS with the test CA, as the platform connects; `name` is what the server calls it.
   */
  connect(user: string, name?: string, logger?: Logger): Promise<BusConnection>;
  /** A cluster's: the replicas each stream is declared with (NATS_STREAM_REPLICAS) by the services launched on it. */
  streamReplicas?: number;
  /** A cluster's: OUTBOX_RETENTION_MS of the services launched on it, so a lossy restart can be replayed. */
  outboxRetentionMs?: number;
  /**
   * A single server's: stops it (SIGTERM), keeps it down `downMs` and starts it again on the same
   * port with the same streams, as a NATS upgrade or a crash does; every client reconnects.
   */
  restart?(downMs: number): Promise<void>;
  /**
   * A single server's: the clients connected to it now, by the name each gave and with the
   * subjects each subscribes to, as the server's system account reports them (CONNZ): for a test
   * that waited in vain to say who else reads what it expected.
   */
  connections?(): Promise<Array<{ name: string; subscriptions: string[] }>>;
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
 * A NATS server of the test's own in operator mode with the product's permissions
 * (libs/contracts bus-access.ts): one user per service and the gateway issued at start, each
 * node's when it is added, every one a JWT signed by the account (identities.ts), as in production.
 */
export async function startTestBus(binary = process.env.NATS_SERVER_BIN ?? '/usr/sbin/nats-server'): Promise<TestBus> {
  const port = await freePort();
  const dir = await mkdtemp(path.join(tmpdir(), 'qw-bus-'));
  const configFile = path.join(dir, 'nats.conf');
  const url = `nats://127.0.0.1:${port}`;
  const users = await issueTestBusUsers(dir, 'test bus');
  const { admin, issuedTo } = users;
  const tls = testNatsCertificates();

  const connectAs = (creds: string) =>
    connect({
      servers: url,
      authenticator: credsSigner(() => creds),
      reconnect: false,
      timeout: 1000,
      tls: { caFile: tls.caFile },
    });

  await writeFile(
    configFile,
    natsServerConfig({
      listen: `127.0.0.1:${port}`,
      storeDir: path.join(dir, 'store'),
      operator: users.serverAuth(path.join(dir, 'accounts')),
      tls,
    }),
    { mode: 0o600 },
  );
  const server = serverProcess(
    () => spawn(binary, ['-c', configFile], { stdio: 'ignore' }),
    async () => {
      const nc = await connectAs(admin.creds);
      try {
        await jetstreamManager(nc).then((jsm) => jsm.getAccountInfo());
      } finally {
        await nc.close();
      }
    },
  );
  await server.start();

  const env = (user: string): BusEnv => ({
    NATS_URL: url,
    NATS_USER: user,
    NATS_CREDS: issuedTo(user).file,
    NATS_CA_FILE: tls.caFile,
  });
  return {
    url,
    caFile: tls.caFile,
    identityDir: dir,
    admin,
    credentials: issuedTo,
    env,
    async addNode(name) {
      await users.addNode(name);
      return env(nodeUser(name));
    },
    revoke: (user) => users.revoke(user, connectAs),
    connect(
      user,
      name = `test-${user}`,
      logger = createLogger({ service: name, level: process.env.TEST_LOG_LEVEL ?? 'silent' }),
    ) {
      return connectBus({ url, name, namespace: '', logger, creds: issuedTo(user).creds, caFile: tls.caFile });
    },
    restart: (downMs) => server.restart('SIGTERM', downMs),
    async connections() {
      const nc = await connectAs(users.system.creds);
      try {
        const answer = await nc.request('$SYS.REQ.SERVER.PING.CONNZ', JSON.stringify({ subscriptions: true }), {
          timeout: 2000,
        });
        const connz = answer.json<{
          data?: { connections?: Array<{ name?: string; subscriptions_list?: string[] }> };
        }>();
        return (connz.data?.connections ?? []).map((c) => ({
          name: c.name ?? '',
          subscriptions: c.subscriptions_list ?? [],
        }));
      } finally {
        await nc.close();
      }
    },
    async stop() {
      await server.halt('SIGTERM');
      await rm(dir, { recursive: true, force: true });
    },
  };
}
