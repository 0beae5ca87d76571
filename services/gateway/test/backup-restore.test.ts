import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  adminDatabaseUrl,
  eventually,
  existingTestDatabase,
  privatePostgresProblem,
  repoRoot,
  startPrivatePostgres,
  wireguardLabProblem,
  type PrivatePostgres,
} from '@qw/testkit';
import { LabNode, registerTestNode } from './support/nodes.ts';
import { customerWithPlan, deviceAdded, deviceServices } from './support/products.ts';
import { Client, startStack, type Stack } from './support/stack.ts';

/**
 * The restore drill (issue #22): customers, devices and keys made through the product, backed up
 * with scripts/backup.sh, the database destroyed, scripts/restore.sh into a fresh Postgres server,
 * the product started on it (a new NATS server too), and everything of before is there: every
 * person's devices with the same keys and addresses, every configuration file byte for byte, and
 * with the WireGuard lab a device connects through the node the agent runs again.
 */
const run = promisify(execFile);
const problem = privatePostgresProblem();
if (problem) console.info(`backup-restore: skipped because ${problem}`);
const labProblem = await wireguardLabProblem();
if (!problem && labProblem) console.info(`backup-restore: no tunnel after the restore because ${labProblem}`);

/** What the product shows a person, as the test compares it before and after. */
type Seen = { email: string; devices: unknown[]; configs: Record<string, string> };

// Secrets a restored deployment keeps: the key that seals device keys, and the access-token key
// (so the people's sessions, which the database holds, still hold).
const sealingKey = randomBytes(32).toString('base64');
const gatewayEnv = { JWT_SECRET: randomBytes(32).toString('base64url') };
const extra = (publicUrl: string, mailUrl: string) => deviceServices(publicUrl, mailUrl, sealingKey);

let before: Stack | undefined;
let after: Stack | undefined;
let fresh: PrivatePostgres | undefined;
let node: LabNode | undefined;
let folder: string;
const people: Array<{ client: Client; email: string }> = [];

async function seen(client: Client, email: string): Promise<Seen> {
  const me = await client.call('GET', '/api/me');
  expect(me.statusCode, `${email} is signed in`).toBe(200);
  const devices = (await client.call('GET', '/api/devices')).data.devices as Array<Record<string, unknown>>;
  const configs: Record<string, string> = {};
  for (const device of devices) {
    const config = await client.call('GET', `/api/device/${device.id}/config`);
    expect(config.statusCode).toBe(200);
    configs[device.id as string] = config.body;
  }
  // Connection and traffic come from the node's samples, which start again on the new bus.
  const kept = devices.map(({ id, name, platform, is_active, public_key, addresses, node, created_at }) => ({
    id,
    name,
    platform,
    is_active,
    public_key,
    addresses,
    node,
    created_at,
  }));
  return { email: me.data.user.email, devices: kept, configs };
}

async function script(name: string, env: Record<string, string>, ...args: string[]): Promise<void> {
  await run(path.join(repoRoot, 'scripts', name), args, { env: { ...process.env, ...env }, cwd: repoRoot });
}

describe.skipIf(problem !== null)('back up, destroy, restore into a fresh server, start the product', () => {
  beforeAll(async () => {
    folder = path.join(await mkdtemp(path.join(tmpdir(), 'qw-backup-')), 'backup');
    before = await startStack({ label: 'backup', extra, gatewayEnv });
    if (labProblem) await registerTestNode(before, 'restore-node');
    else node = await LabNode.start(before, 'restore-node', { NODE_IP: '203.0.113.60' });
    for (const [email, plan] of [
      ['ada.restore@example.com', 'personal'],
      ['ben.restore@example.com', 'gaming'],
      ['cai.restore@example.com', 'personal'],
    ] as const)
      people.push({ client: await customerWithPlan(before, email, plan), email });
    for (const [index, person] of people.entries())
      for (const name of ['Laptop', 'Phone'].slice(0, index === 1 ? 1 : 2))
        await deviceAdded(person.client, { name: `${name} ${index}`, platform: 'linux' });
  }, 120_000);

  afterAll(async () => {
    await node?.stop();
    await after?.stop();
    await before?.stop();
    await fresh?.stop();
    if (folder) await rm(path.dirname(folder), { recursive: true, force: true });
  });

  it('keeps every customer, device and key, and a device still connects', async () => {
    const stack = before!;
    const was: Seen[] = [];
    for (const person of people) was.push(await seen(person.client, person.email));
    const deviceCount = was.reduce((sum, person) => sum + person.devices.length, 0);
    expect(deviceCount).toBe(5);
    if (node) {
      const keys = was.flatMap((person) => person.devices.map((d) => (d as { public_key: string }).public_key));
      await eventually(async () => {
        const peers = await node!.peers();
        return keys.every((key) => peers.includes(key));
      }, 15_000);
    }

    await script('backup.sh', { DATABASE_ADMIN_URL: adminDatabaseUrl, DATABASE_NAME: stack.database.name }, folder);
    await node?.stopAgent();
    // Destroyed: the stack's stop drops its database.
    await stack.stop();
    before = undefined;

    fresh = await startPrivatePostgres();
    await script('restore.sh', { DATABASE_ADMIN_URL: fresh.adminUrl, DATABASE_NAME: 'quietwire_restored' }, folder);
    after = await startStack({
      label: 'restored',
      database: existingTestDatabase('quietwire_restored', fresh.adminUrl),
      extra,
      gatewayEnv,
    });
    if (node) await node.moveTo(after);

    for (const [index, person] of people.entries()) {
      // The same person's browser, with the session cookie and access token it had before the backup.
      const browser = new Client(after.app, person.client.address);
      browser.cookies = new Map(person.client.cookies);
      browser.accessToken = person.client.accessToken;
      const now = await seen(browser, person.email);
      expect(now).toEqual(was[index]);
    }

    if (node) {
      const [first] = was;
      const device = first!.devices[0] as { id: string; public_key: string };
      await eventually(async () => (await node!.peers()).includes(device.public_key), 15_000);
      await node.connect(first!.configs[device.id]!);
      expect(await eventually(() => node!.ping(), 20_000, 100)).toBe(true);
    }
  }, 110_000);
});
