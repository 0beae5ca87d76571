import { randomBytes } from 'node:crypto';
import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { LightMyRequestResponse } from 'fastify';
import type { Logger } from 'pino';
import {
  RpcClient,
  loadConfig,
  createLogger,
  type HttpApp,
  type RunningService,
  type BusConnection,
  type ServiceDefinition,
} from '@qw/platform';
import {
  createTestDatabase,
  freePort,
  launchService,
  startSmtpCapture,
  startTestBus,
  testCallerKeys,
  type SmtpCapture,
  type TestBus,
  type TestDatabase,
} from '@qw/testkit';
import { identityService } from '@qw/identity';
import { buildGateway } from '../../src/app.ts';
import { GatewayConfigSchema } from '../../src/config.ts';
import { withWebBuild } from '../../../../web/test/support/global-setup.ts';

export type Stack = {
  app: HttpApp;
  /** Where the gateway is reachable: a real address when started with `listen`, else the nominal one. */
  publicUrl: string;
  smtp: SmtpCapture;
  database: TestDatabase;
  /** The NATS server of this stack: authentication and the product's permissions on. */
  testBus: TestBus;
  services: Record<string, RunningService<any>>;
  /** The gateway's own connection (its NATS user may ask the services' RPCs and nothing else). */
  bus: BusConnection;
  /** Connects as a node agent of that name (its own NATS user, added on first use). */
  connectNode(name: string): Promise<{ bus: BusConnection; rpc: RpcClient }>;
  /** Connects with every right, to look into streams as an operator would. */
  connectAdmin(): Promise<BusConnection>;
  stop(): Promise<void>;
};

/**
 * Real services in this process against a database and a NATS server of this test file, plus the
 * gateway app (called with `inject`, or listening when a browser needs it), plus SMTP capture.
 */
export async function startStack(options: {
  label: string;
  adminEmails?: string[];
  /** More services, built for this stack's public address. */
  extra?: (publicUrl: string, mailUrl: string) => Array<ServiceDefinition<any>>;
  gatewayEnv?: Record<string, string>;
  /** Identity's settings beyond the stack's own (DEMO_TOOLS, MARK_TEST_ACCOUNTS). */
  identity?: { DEMO_TOOLS?: boolean; MARK_TEST_ACCOUNTS?: boolean };
  /**
   * Listen on a free loopback port and serve the built web app (for browser tests), from a copy
   * of web/dist of its own: another process rebuilding web/dist mid-run empties it first.
   */
  listen?: boolean;
  /** The logger each service (and the gateway) writes to, by name; default: TEST_LOG_LEVEL, silent. */
  logger?: (service: string) => Logger;
  /**
   * Where the stack's data lives: a new database on this server (an admin URL; default the
   * tests' server), or `database`, one that exists (a restored copy), which `stop` leaves alone.
   */
  server?: string;
  database?: TestDatabase;
  /** A hot standby of the stack's server: each service reads its lag-tolerant reads there. */
  standby?: string;
  /** A PgBouncer (`host:port`) in front of the stack's server, which the services' queries go through. */
  pooler?: string;
  /** The bus to run on (a NATS cluster, startNatsCluster) instead of a server of the stack's own; `stop` stops it. */
  testBus?: TestBus;
}): Promise<Stack> {
  const port = options.listen ? await freePort() : undefined;
  const publicUrl = port ? `http://127.0.0.1:${port}` : 'http://localhost:8080';
  const webDist = options.listen ? mkdtempSync(join(tmpdir(), 'qw-web-dist-')) : undefined;
  // The database, the bus, the mail capture and the web app's copy do not depend on each other:
  // made at the same time, each file's stack starts a few hundred milliseconds sooner.
  const [database, testBus, smtp] = await Promise.all([
    options.database ?? createTestDatabase(options.label, options.server, { migrated: true, asyncCommit: true }),
    options.testBus ?? startTestBus(),
    startSmtpCapture(),
    webDist ? withWebBuild((dist) => cpSync(dist, webDist, { recursive: true })) : undefined,
  ]);
  const services: Record<string, RunningService<any>> = {};
  services.identity = await launchService(
    identityService({
      PUBLIC_URL: publicUrl,
      SUPPORT_EMAIL: 'support@quietwire.test',
      ADMIN_EMAILS: (options.adminEmails ?? []).join(','),
      MAIL_URL: smtp.url,
      MAIL_FROM: 'Quietwire <no-reply@quietwire.test>',
      MAIL_DIR: 'var/mail-test',
      NODE_ENV: 'test',
      ...options.identity,
    }),
    { database, bus: testBus, standby: options.standby, pooler: options.pooler },
    options.logger ? { logger: options.logger('identity') } : {},
  );
  for (const definition of options.extra?.(publicUrl, smtp.url) ?? [])
    services[definition.name] = await launchService(
      definition,
      { database, bus: testBus, standby: options.standby, pooler: options.pooler },
      options.logger ? { logger: options.logger(definition.name) } : {},
    );

  const logger =
    options.logger?.('gateway') ?? createLogger({ service: 'gateway', level: process.env.TEST_LOG_LEVEL ?? 'silent' });
  const gatewayBus = testBus.env('gateway');
  const bus = await testBus.connect('gateway', 'gateway-test', logger);
  const nodes: BusConnection[] = [];
  let admin: Promise<BusConnection> | undefined;
  const config = loadConfig(GatewayConfigSchema, {
    NODE_ENV: 'test',
    ...gatewayBus,
    CALLER_TOKEN_PRIVATE_KEY: testCallerKeys.privateKey,
    PUBLIC_URL: publicUrl,
    JWT_SECRET: randomBytes(32).toString('base64url'),
    ADDRESS_HASH_KEY: randomBytes(32).toString('base64url'),
    GATEWAY_SERVICES: Object.keys(services).join(','),
    WEB_DIST: webDist ?? '/nonexistent',
    ...options.gatewayEnv,
  });
  const app = await buildGateway(config, { bus, rpc: new RpcClient(bus, config.RPC_TIMEOUT_MS), logger });
  await app.ready();
  if (port) await app.listen({ host: '127.0.0.1', port });
  return {
    app,
    publicUrl,
    smtp,
    database,
    testBus,
    services,
    bus,
    async connectAdmin() {
      admin ??= testBus.connect(testBus.admin.user, 'admin-test', logger).then((connection) => {
        nodes.push(connection);
        return connection;
      });
      return admin;
    },
    async connectNode(name) {
      const env = await testBus.addNode(name);
      const nodeBus = await testBus.connect(env.NATS_USER, `node-${name}`, logger);
      nodes.push(nodeBus);
      return { bus: nodeBus, rpc: new RpcClient(nodeBus) };
    },
    async stop() {
      await app.close();
      await bus.close();
      for (const node of nodes) await node.close();
      for (const service of Object.values(services).reverse()) await service.stop();
      await smtp.close();
      await testBus.stop();
      if (!options.database) await database.drop();
      if (webDist) rmSync(webDist, { recursive: true, force: true });
    },
  };
}

/** Keeps cookies between calls, as a browser does for this site. */
export class Client {
  cookies = new Map<string, string>();
  accessToken: string | undefined;

  constructor(
    private readonly app: HttpApp,
    readonly address = '203.0.113.10',
  ) {}

  async call(
    method: 'GET' | 'POST' | 'PATCH' | 'DELETE',
    url: string,
    body?: unknown,
    headers: Record<string, string> = {},
  ): Promise<LightMyRequestResponse & { data: any }> {
    const cookie = [...this.cookies].map(([k, v]) => `${k}=${v}`).join('; ');
    const response = await this.app.inject({
      method,
      url,
      remoteAddress: this.address,
      headers: {
        ...(cookie ? { cookie } : {}),
        ...(this.accessToken ? { authorization: `Bearer ${this.accessToken}` } : {}),
        ...headers,
      },
      ...(body !== undefined ? { payload: body as object } : {}),
    });
    for (const set of response.cookies as Array<{ name: string; value: string; expires?: Date; maxAge?: number }>) {
      const expired = (set.expires && set.expires.getTime() < Date.now()) || set.maxAge === 0 || set.value === '';
      if (expired) this.cookies.delete(set.name);
      else this.cookies.set(set.name, set.value);
    }
    const text = response.body;
    const data = text && response.headers['content-type']?.toString().includes('json') ? JSON.parse(text) : text;
    if (data && typeof data === 'object' && typeof data.access_token === 'string') this.accessToken = data.access_token;
    return Object.assign(response, { data });
  }
}

export function linkToken(mailText: string, path: string): string {
  const match = new RegExp(`${path.replace(/\//g, '\\/')}\\?token=([\\w-]+)`).exec(mailText);
  if (!match?.[1]) throw new Error(`no ${path} link in mail`);
  return match[1];
}

/**
 * Follows the verification link mailed to `email` and chooses `password` on the step after it, as
 * the owner of the mailbox does; answers a client signed in with the session that step starts.
 */
export async function confirmEmail(stack: Stack, email: string, password: string, client = new Client(stack.app)) {
  const mail = await stack.smtp.waitFor(
    (m) =>
      (m.to as { text: string } | undefined)?.text.includes(email.toLowerCase()) === true &&
      m.subject === 'Confirm your email for Quietwire',
  );
  // The link opens a page that holds no token (the web app sends these tokenless), and the first
  // verification ends the account's other sessions, with their access tokens, within a second.
  client.accessToken = undefined;
  const verified = await client.call('POST', '/api/auth/verify', { token: linkToken(mail.text!, '/auth/callback') });
  if (verified.statusCode !== 200) throw new Error(`verify failed: ${verified.statusCode} ${verified.body}`);
  const set = await client.call('POST', '/api/auth/password/set', {
    token: verified.data.set_password_token,
    password,
  });
  if (set.statusCode !== 200) throw new Error(`set password failed: ${set.statusCode} ${set.body}`);
  return client;
}

/** Signs `email` up from `address` (limits count per address); fails loudly unless the product answers 201. */
export async function signUp(stack: Stack, email: string, address: string, password = 'correct horse battery') {
  const client = new Client(stack.app, address);
  const answer = await client.call('POST', '/api/auth/signup', { email, password });
  if (answer.statusCode !== 201) throw new Error(`sign-up ${email}: ${answer.statusCode} ${answer.body}`);
  return client;
}

/** Signs `email` up from `address` and confirms the address (`confirmEmail`); answers the signed-in client. */
export async function signUpConfirmed(
  stack: Stack,
  email: string,
  address: string,
  password = 'correct horse battery',
): Promise<Client> {
  return confirmEmail(stack, email, password, await signUp(stack, email, address, password));
}
