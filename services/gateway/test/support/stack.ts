import { randomBytes } from 'node:crypto';
import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { LightMyRequestResponse } from 'fastify';
import { connectBus, RpcClient, loadConfig, createLogger, type HttpApp, type RunningService, type BusConnection, type ServiceDefinition } from '@qw/platform';
import { createTestDatabase, deleteNamespace, freePort, launchService, sharedNatsUrl, startSmtpCapture, testNamespace, type SmtpCapture, type TestDatabase } from '@qw/testkit';
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
  namespace: string;
  services: Record<string, RunningService<any>>;
  bus: BusConnection;
  stop(): Promise<void>;
};

/**
 * Real services in this process against a database and namespace of this test file, plus the
 * gateway app (called with `inject`, or listening when a browser needs it), plus SMTP capture.
 */
export async function startStack(options: {
  label: string;
  adminEmails?: string[];
  /** More services, built for this stack's public address. */
  extra?: (publicUrl: string, mailUrl: string) => Array<ServiceDefinition<any>>;
  gatewayEnv?: Record<string, string>;
  /**
   * Listen on a free loopback port and serve the built web app (for browser tests), from a copy
   * of web/dist of its own: another process rebuilding web/dist mid-run empties it first.
   */
  listen?: boolean;
}): Promise<Stack> {
  const port = options.listen ? await freePort() : undefined;
  const publicUrl = port ? `http://127.0.0.1:${port}` : 'http://localhost:8080';
  const webDist = options.listen ? mkdtempSync(join(tmpdir(), 'qw-web-dist-')) : undefined;
  if (webDist) await withWebBuild((dist) => cpSync(dist, webDist, { recursive: true }));
  const database = await createTestDatabase(options.label);
  const namespace = testNamespace();
  const smtp = await startSmtpCapture();
  const services: Record<string, RunningService<any>> = {};
  services.identity = await launchService(identityService({
    PUBLIC_URL: publicUrl,
    SUPPORT_EMAIL: 'support@quietwire.test',
    ADMIN_EMAILS: (options.adminEmails ?? []).join(','),
    MAIL_URL: smtp.url,
    MAIL_FROM: 'Quietwire <no-reply@quietwire.test>',
    MAIL_DIR: 'var/mail-test',
  }), { database, namespace });
  for (const definition of options.extra?.(publicUrl, smtp.url) ?? []) services[definition.name] = await launchService(definition, { database, namespace });

  const logger = createLogger({ service: 'gateway', level: process.env.TEST_LOG_LEVEL ?? 'silent' });
  const bus = await connectBus({ url: sharedNatsUrl, name: 'gateway-test', namespace, logger });
  const config = loadConfig(GatewayConfigSchema, {
    NODE_ENV: 'test',
    NATS_URL: sharedNatsUrl,
    BUS_NAMESPACE: namespace,
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
    app, publicUrl, smtp, database, namespace, services, bus,
    async stop() {
      await app.close();
      await bus.close();
      for (const service of Object.values(services).reverse()) await service.stop();
      await smtp.close();
      await deleteNamespace(namespace);
      await database.drop();
      if (webDist) rmSync(webDist, { recursive: true, force: true });
    },
  };
}

/** Keeps cookies between calls, as a browser does for this site. */
export class Client {
  cookies = new Map<string, string>();
  accessToken: string | undefined;

  constructor(private readonly app: HttpApp, private readonly address = '203.0.113.10') {}

  async call(method: 'GET' | 'POST' | 'PATCH' | 'DELETE', url: string, body?: unknown, headers: Record<string, string> = {}): Promise<LightMyRequestResponse & { data: any }> {
    const cookie = [...this.cookies].map(([k, v]) => `${k}=${v}`).join('; ');
    const response = await this.app.inject({
      method, url, remoteAddress: this.address,
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
