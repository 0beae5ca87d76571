import { readFile } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import {
  dataInventory,
  declaredLogField,
  declaredLogKinds,
  declaredStreamKinds,
  declaredTable,
  inventoryTableName,
  type SensitiveKind,
} from '@qw/contracts';
import { captureLogs, eventually, wireguardLabProblem, type CapturedLogs } from '@qw/testkit';
import { DEFAULT_ULA_PREFIX, NODE_IPV4_SUPERNET, parseClientConfig } from '@qw/wireguard';
import { analyticsService } from '@qw/analytics';
import { LabNode } from './support/nodes.ts';
import { Client, confirmEmail, linkToken, startStack, type Stack } from './support/stack.ts';
import { customerWithPlan, deviceAdded, deviceServices } from './support/products.ts';
import { scanner, stringsOf, type Detected } from './support/privacy-scan.ts';

/**
 * The privacy audit (issue #15): a real end-to-end flow (sign up, buy, confirm the address, add a
 * device, download its config by session and by link, connect through a real node that reports
 * telemetry) with every service's log captured at debug level; then every log line, every row of
 * every table of every service schema and every message kept in every JetStream stream is
 * searched for e-mail addresses, client IP addresses, WireGuard private keys, tokens and the
 * password. Anything found where `dataInventory` (libs/contracts) does not declare it fails, named
 * with where it was found; so does a table the declaration does not list.
 */
const problem = await wireguardLabProblem();
if (problem) console.info(`privacy-audit: skipped because ${problem}`);

const email = 'pia.privacy@example.com';
const password = 'correct horse battery';
const services = ['identity', 'billing', 'provisioning', 'telemetry', 'analytics'] as const;
const ignored = new Set<Detected['kind']>(['loopback', 'node_address']);

const fullName = 'Pia Privacy';
const deviceName = 'Pia phone';

let stack: Stack;
let node: LabNode;
let owner: Client;
let device: { id: string; public_key: string; addresses: string[] };
const logs: CapturedLogs[] = [];
const secrets = new Map<string, SensitiveKind>();

function short(sample: string): string {
  return sample.length > 24 ? `${sample.slice(0, 10)}…${sample.slice(-6)}` : sample;
}

describe.skipIf(problem !== null)('privacy audit', () => {
  beforeAll(async () => {
    stack = await startStack({
      label: 'privacy',
      extra: (url, mail) => [...deviceServices(url, mail), analyticsService({})],
      logger: (service) => {
        const captured = captureLogs(service, 'debug');
        logs.push(captured);
        return captured.logger;
      },
    });
    const agentLogs = captureLogs('node-agent', 'debug');
    logs.push(agentLogs);
    node = await LabNode.start(stack, 'lab-privacy-1', { NODE_IP: '203.0.113.70' }, agentLogs.logger);
  }, 120_000);

  afterAll(async () => {
    await node?.stop();
    await stack?.stop();
  });

  it('runs the customer journey end to end on a real node', async () => {
    secrets.set(password, 'password');
    const buyer = await customerWithPlan(stack, email, 'personal', password);
    const verification = await stack.smtp.waitFor((m) => m.subject === 'Confirm your email for Quietwire');
    secrets.set(linkToken(verification.text!, '/auth/callback'), 'token');
    for (const value of buyer.cookies.values()) secrets.set(value, 'token');
    owner = await confirmEmail(stack, email, password);
    expect((await owner.call('PATCH', '/api/me/profile', { full_name: fullName })).statusCode).toBe(200);
    for (const value of owner.cookies.values()) secrets.set(value, 'token');
    secrets.set(owner.accessToken!, 'token');
    const refreshed = await owner.call('POST', '/api/auth/refresh', {}, { origin: stack.publicUrl });
    expect(refreshed.statusCode).toBe(200);
    for (const value of owner.cookies.values()) secrets.set(value, 'token');

    device = await deviceAdded(owner, { name: deviceName, platform: 'android' });
    const config = (await owner.call('GET', `/api/device/${device.id}/config`)).body as string;
    secrets.set(parseClientConfig(config).privateKey, 'private_key');
    // The preshared key (issue #25) is a secret like the private key: sealed at rest, in no event, log or stream.
    secrets.set(parseClientConfig(config).presharedKey!, 'private_key');
    const link = await owner.call('POST', `/api/devices/${device.id}/config-link`);
    for (const url of [link.data.url, link.data.qr_url])
      secrets.set(new URL(url, 'http://x').searchParams.get('token')!, 'token');
    const byLink = await new Client(stack.app, '198.51.100.77').call('GET', link.data.url);
    expect(byLink.statusCode).toBe(200);
    // "Am I protected?" over HTTPS (issue #25) compares the visitor's address in the gateway: none is kept or logged.
    const checked = await new Client(stack.app, '198.51.100.78').call('GET', '/api/connection-check');
    expect(checked.data).toEqual({ protected: false, server: null, resolvers: [] });
    const fromNode = await new Client(stack.app, '203.0.113.70').call('GET', '/api/connection-check');
    expect(fromNode.data).toMatchObject({ protected: true, server: { name: 'lab-privacy-1' } });
    await stack.smtp.waitFor((m) => m.subject === `Your Quietwire configuration for ${deviceName}`);

    await eventually(async () => (await node.peers()).includes(device.public_key), 10_000);
    await node.connect(config);
    expect(await eventually(() => node.ping(), 15_000, 100)).toBe(true);
    await eventually(
      async () => {
        const overview = await owner.call('GET', '/api/overview');
        return overview.data.connected === 1;
      },
      30_000,
      250,
    );
    // "Connected" comes from the node's handshake watch within a second; what telemetry keeps of
    // the connection (the masked network, its latest row) comes with the node's next sample. The
    // audit below looks for both, so the journey ends when the sample has been recorded.
    await eventually(
      async () => {
        const exported = await owner.call('GET', '/api/me/export');
        return exported.data.devices?.[0]?.connected_from != null;
      },
      30_000,
      250,
    );
    secrets.set((await readFile(node.keyFile, 'utf8')).trim(), 'private_key');
  }, 120_000);

  it('finds no personal data or secret outside the declaration: logs, tables and streams', async () => {
    const nodes = await stack.services
      .provisioning!.db.selectFrom('nodes')
      .select(['ip', 'endpoint', 'egress'])
      .execute();
    const nodeAddresses = new Set(
      nodes.flatMap((node) => [node.ip, node.endpoint.replace(/:\d+$/, ''), ...node.egress]),
    );
    const scan = scanner({ tunnelRanges: [NODE_IPV4_SUPERNET, DEFAULT_ULA_PREFIX], nodeAddresses, secrets });
    const problems: string[] = [];
    /** What was found where the declaration allows it: proof that the search finds what it looks for. */
    const declaredFinds = new Set<string>();
    const report = (where: string, found: Detected[], allowed: readonly SensitiveKind[]) => {
      for (const hit of found) {
        if (ignored.has(hit.kind)) continue;
        if (allowed.includes(hit.kind as SensitiveKind)) {
          declaredFinds.add(`${where}: ${hit.kind}`);
          continue;
        }
        problems.push(`${where}: ${hit.kind} (${short(hit.sample)})`);
      }
    };

    // Every log line, every field.
    let lines = 0;
    for (const captured of logs) {
      for (const line of captured.lines) {
        lines++;
        for (const { path: field, text } of stringsOf(line)) {
          if (!declaredLogField(field)) problems.push(`log field ${field.split(/[.[]/)[0]}: not in the data inventory`);
          report(`log ${String(line.service)} field ${field}`, scan(text), declaredLogKinds(field));
        }
      }
    }
    expect(lines).toBeGreaterThan(20);

    // Every table of every service schema, every row and column.
    let rows = 0;
    for (const service of services) {
      const db = stack.services[service]!.db;
      const tables = await sql<{ table_name: string }>`select table_name from information_schema.tables
        where table_schema = current_schema() and table_type = 'BASE TABLE' order by table_name`.execute(db);
      for (const { table_name: table } of tables.rows) {
        const declared = declaredTable(service, table);
        if (!declared) problems.push(`table ${service}.${table}: not in the data inventory`);
        const content = await sql<Record<string, unknown>>`select * from ${sql.table(table)}`.execute(db);
        for (const row of content.rows) {
          rows++;
          for (const [column, value] of Object.entries(row)) {
            const allowed = declared?.personal.find((c) => c.column === column)?.kinds ?? [];
            for (const { text } of stringsOf(value)) report(`table ${service}.${table}.${column}`, scan(text), allowed);
          }
        }
      }
    }
    expect(rows).toBeGreaterThan(10);

    // Every message every stream keeps: subject, headers and payload.
    const admin = await stack.connectAdmin();
    let messages = 0;
    for await (const stream of admin.jsm.streams.list()) {
      const name = stream.config.name;
      if (!dataInventory.streams.some((s) => s.stream === name))
        problems.push(`stream ${name}: not in the data inventory`);
      for (let seq = stream.state.first_seq; seq <= stream.state.last_seq && stream.state.messages > 0; seq++) {
        const message = await admin.jsm.streams.getMessage(name, { seq }).catch(() => null);
        if (!message) continue;
        messages++;
        const subject = message.subject;
        report(`stream ${name} subject ${subject}`, scan(subject), []);
        for (const key of message.header?.keys() ?? []) {
          for (const value of message.header!.values(key))
            report(`stream ${name} ${subject} header ${key}`, scan(value), []);
        }
        let payload: unknown;
        try {
          payload = message.json();
        } catch {
          payload = message.string();
        }
        for (const { path: field, text } of stringsOf(payload)) {
          report(`stream ${name} ${subject} ${field}`, scan(text), declaredStreamKinds(name, subject, field));
        }
      }
    }
    expect(messages).toBeGreaterThan(10);

    expect([...new Set(problems)]).toEqual([]);
    expect([...declaredFinds]).toEqual(
      expect.arrayContaining([
        'table identity.users.email: email',
        'table billing.checkout_sessions.email: email',
        'table provisioning.devices.ipv4: tunnel_address',
        'table telemetry.device_latest_telemetry.endpoint: masked_client_network',
        'stream NODE node.lab-privacy-1.peers.sampled data.peers[].maskedEndpoint: masked_client_network',
      ]),
    );
  }, 60_000);

  it('declares only tables that exist', async () => {
    const existing = new Map<string, Set<string>>();
    for (const service of services) {
      const tables = await sql<{ table_name: string }>`select table_name from information_schema.tables
        where table_schema = current_schema() and table_type = 'BASE TABLE'`.execute(stack.services[service]!.db);
      existing.set(service, new Set(tables.rows.map((row) => inventoryTableName(row.table_name))));
    }
    const missing = dataInventory.tables.filter((t) =>
      t.service === 'every'
        ? services.some((service) => !existing.get(service)!.has(t.table))
        : !existing.get(t.service)!.has(t.table),
    );
    expect(missing.map((t) => `${t.service}.${t.table}`)).toEqual([]);
  });

  it('exports what "What we store" lists about the person, and no private key, token or password', async () => {
    const exported = await owner.call('GET', '/api/me/export');
    expect(exported.statusCode).toBe(200);
    expect(exported.headers['content-disposition']).toMatch(
      /^attachment; filename="quietwire-data-\d{4}-\d{2}-\d{2}\.json"$/,
    );
    const data = exported.data;
    expect(data.account).toMatchObject({ email, full_name: fullName, account_type: 'personal', email_verified: true });
    expect(Date.parse(data.account.created_at)).not.toBeNaN();
    expect(data.devices).toEqual([
      expect.objectContaining({
        id: device.id,
        name: deviceName,
        platform: 'android',
        public_key: device.public_key,
        addresses: device.addresses,
        status: 'active',
        server: 'lab-privacy-1',
        // What telemetry keeps of it: the handshake, and the network cut to /24 (never the address).
        last_handshake_at: expect.any(String),
        connected_from: expect.stringMatching(/\.0\/24$/),
      }),
    ]);
    expect(data.subscriptions).toEqual([expect.objectContaining({ plan: 'personal', status: 'active' })]);
    expect(data.invoices.length).toBeGreaterThanOrEqual(1);
    expect(data.invoices[0]).toMatchObject({ status: 'paid', card: expect.stringMatching(/4242$/) });
    expect(data.organizations).toEqual([]);
    expect(Array.isArray(data.audit)).toBe(true);
    // Nothing secret: no private or preshared key, token, password or its hash.
    const text = JSON.stringify(data);
    for (const [secret, kind] of secrets) expect(text.includes(secret), `the export holds a ${kind}`).toBe(false);
    expect(text).not.toMatch(/private|preshared|password|token|secret|\$argon2/i);
  });

  it('deletes the account: plan cancelled, peer gone from the node, mail sent, no sign-in, no personal data left', async () => {
    const userId = (await owner.call('GET', '/api/me')).data.user.id as string;
    const wrong = await owner.call('POST', '/api/me/delete', { password: 'not my password at all' });
    expect(wrong.statusCode).toBe(400);
    expect(wrong.data.error).toMatchObject({ code: 'validation_failed', message: 'That password is not right.' });
    expect(await node.peers()).toContain(device.public_key);

    const deleted = await owner.call('POST', '/api/me/delete', { password });
    expect(deleted.statusCode).toBe(200);
    expect(String(deleted.headers['set-cookie'])).toMatch(/Expires=Thu, 01 Jan 1970/);
    const mail = await stack.smtp.waitFor((m) => m.subject === 'Your Quietwire account has been deleted');
    expect(mail.to && 'text' in mail.to ? mail.to.text : '').toContain(email);

    await eventually(async () => !(await node.peers()).includes(device.public_key), 15_000);
    const billing = stack.services.billing!.db;
    await eventually(async () => {
      const subs = await billing.selectFrom('subscriptions').select('status').where('user_id', '=', userId).execute();
      return subs.length > 0 && subs.every((sub) => sub.status === 'canceled');
    }, 15_000);
    const signIn = await new Client(stack.app, '198.51.100.78').call('POST', '/api/auth/login', { email, password });
    expect(signIn.statusCode).toBe(401);
    await eventually(async () => (await owner.call('GET', '/api/me')).statusCode === 401, 5_000);
    // Every outbox published, every consumer done: what stays is what deletion left.
    for (const service of services)
      await eventually(async () => {
        const left = await sql<{ n: number }>`select count(*)::int as n from outbox`.execute(
          stack.services[service]!.db,
        );
        return left.rows[0]!.n === 0;
      }, 15_000);
    await eventually(async () => {
      const keys = await sql<{
        n: number;
      }>`select count(*)::int as n from device_keys where device_id = ${device.id}`.execute(
        stack.services.telemetry!.db,
      );
      return keys.rows[0]!.n === 0;
    }, 15_000);

    // The person's own strings: in no table of any schema, no log line, no stream. Device names and
    // public keys stay in the PROVISIONING stream its 7 days (the declaration says so); nowhere else.
    const personal = [email, fullName, deviceName, device.public_key, ...device.addresses.map((a) => a.split('/')[0]!)];
    const inStreams = [email, fullName];
    const found: string[] = [];
    const look = (where: string, value: unknown, wanted: readonly string[]) => {
      for (const { text } of stringsOf(value))
        for (const needle of wanted) if (text.includes(needle)) found.push(`${where}: ${short(needle)}`);
    };
    for (const service of services) {
      const db = stack.services[service]!.db;
      const tables = await sql<{ table_name: string }>`select table_name from information_schema.tables
        where table_schema = current_schema() and table_type = 'BASE TABLE' order by table_name`.execute(db);
      for (const { table_name: table } of tables.rows) {
        const content = await sql<Record<string, unknown>>`select * from ${sql.table(table)}`.execute(db);
        for (const row of content.rows) look(`table ${service}.${table}`, row, personal);
      }
    }
    for (const captured of logs)
      for (const line of captured.lines) look(`log ${String(line.service)}`, line, inStreams);
    const admin = await stack.connectAdmin();
    for await (const stream of admin.jsm.streams.list()) {
      const name = stream.config.name;
      for (let seq = stream.state.first_seq; seq <= stream.state.last_seq && stream.state.messages > 0; seq++) {
        const message = await admin.jsm.streams.getMessage(name, { seq }).catch(() => null);
        if (message) look(`stream ${name} ${message.subject}`, message.string(), inStreams);
      }
    }
    expect([...new Set(found)]).toEqual([]);
  }, 90_000);
});
