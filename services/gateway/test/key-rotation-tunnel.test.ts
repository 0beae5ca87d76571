import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { advanceProvisioningClockRpc } from '@qw/contracts';
import { RpcClient } from '@qw/platform';
import { eventually, wireguardLabProblem } from '@qw/testkit';
import { parseClientConfig } from '@qw/wireguard';
import { LabNode } from './support/nodes.ts';
import { type Client, confirmEmail, startStack, type Stack } from './support/stack.ts';
import { customerWithPlan, deviceAdded, deviceServices } from './support/products.ts';

const problem = await wireguardLabProblem();
if (problem) console.info(`key-rotation-tunnel: skipped because ${problem}`);

const email = 'rota@example.com';
let stack: Stack;
let node: LabNode;
let owner: Client;

async function download(deviceId: string): Promise<string> {
  const response = await owner.call('GET', `/api/device/${deviceId}/config`);
  expect(response.statusCode).toBe(200);
  return response.body;
}

/** Brings the lab's client up with this config (replacing the one it had) and pings the node through it. */
async function tunnelWorks(config: string, waitMs = 15_000): Promise<boolean> {
  await node.connect(config);
  return eventually(() => node.ping(1), waitMs, 100).catch(() => false);
}

/** Provisioning's test clock, asked as the tests' admin connection asks (the gateway may not). */
async function advanceHours(hours: number): Promise<void> {
  await new RpcClient(await stack.connectAdmin()).request(advanceProvisioningClockRpc, { hours });
}

async function theDevice(id: string) {
  const listed = await owner.call('GET', '/api/devices');
  return listed.data.devices.find((d: { id: string }) => d.id === id);
}

describe.skipIf(problem !== null)('scheduled key rotation on real WireGuard', () => {
  beforeAll(async () => {
    stack = await startStack({ label: 'rotation', extra: deviceServices });
    node = await LabNode.start(stack, 'lab-rotation-1', { NODE_IP: '203.0.113.60' });
    owner = await customerWithPlan(stack, email);
    owner = await confirmEmail(stack, email, 'correct horse battery');
  }, 120_000);

  afterAll(async () => {
    await node?.stop();
    await stack?.stop();
  });

  let deviceId: string;
  let firstKey: string;
  let oldConfig: string;

  it('sets a schedule of 30 days on a device; anything else is refused with a code and changes nothing', async () => {
    const created = await deviceAdded(owner, { name: 'Rota laptop', platform: 'linux' });
    deviceId = created.id;
    firstKey = created.public_key;
    expect(created).toMatchObject({ key_rotation_days: null, next_key_rotation_at: null });

    for (const body of [
      { every_days: 7 },
      { every_days: 365 },
      { every_days: 'monthly' },
      {},
      { every_days: 30, extra: 1 },
    ]) {
      const refused = await owner.call('PATCH', `/api/devices/${deviceId}/key-rotation`, body);
      expect(refused.statusCode, JSON.stringify(body)).toBe(400);
      expect(refused.data.error.code).toBe('validation_failed');
    }
    expect(await theDevice(deviceId)).toMatchObject({ key_rotation_days: null, next_key_rotation_at: null });

    const before = Date.now();
    const set = await owner.call('PATCH', `/api/devices/${deviceId}/key-rotation`, { every_days: 30 });
    expect(set.statusCode).toBe(200);
    expect(set.data.device.key_rotation_days).toBe(30);
    const next = new Date(set.data.device.next_key_rotation_at).getTime();
    expect(next).toBeGreaterThanOrEqual(before + 30 * 86_400_000 - 1000);
    expect(next).toBeLessThanOrEqual(Date.now() + 30 * 86_400_000 + 1000);
    expect(await theDevice(deviceId)).toMatchObject({ key_rotation_days: 30, previous_key_expires_at: null });

    const stranger = await customerWithPlan(stack, 'stranger@example.com');
    const hidden = await stranger.call('PATCH', `/api/devices/${deviceId}/key-rotation`, { every_days: 90 });
    expect(hidden.statusCode).toBe(404);
    expect((await theDevice(deviceId)).key_rotation_days).toBe(30);

    await eventually(async () => (await node.peers()).includes(firstKey), 10_000);
    oldConfig = await download(deviceId);
    expect(await tunnelWorks(oldConfig)).toBe(true);
  }, 90_000);

  it('nothing happens before the rotation is due', async () => {
    await advanceHours(29 * 24);
    expect((await theDevice(deviceId)).public_key).toBe(firstKey);
  }, 30_000);

  it('when due: a new key, its config mailed; the new tunnel works and the old one still does in the grace period', async () => {
    await advanceHours(24 + 1);
    const rotated = await theDevice(deviceId);
    expect(rotated.public_key).not.toBe(firstKey);
    expect(rotated.key_rotation_days).toBe(30);
    const graceEnds = new Date(rotated.previous_key_expires_at).getTime();
    const nextRotation = new Date(rotated.next_key_rotation_at).getTime();
    expect(nextRotation - graceEnds).toBe((30 * 24 - 24) * 3600_000);

    const mail = await stack.smtp.waitFor((m) => m.subject === 'New key for Rota laptop');
    expect(mail.text).toContain('The previous key keeps working for 24 hours');
    const attached = mail.attachments.find((a) => a.filename?.endsWith('.conf'));
    const mailed = attached!.content.toString('utf8');
    expect(mailed).toBe(await download(deviceId));
    expect(parseClientConfig(mailed).addresses).not.toEqual(parseClientConfig(oldConfig).addresses);

    await eventually(async () => {
      const peers = await node.peers();
      return peers.includes(firstKey) && peers.includes(rotated.public_key);
    }, 10_000);
    expect(await tunnelWorks(mailed)).toBe(true);
    expect(await tunnelWorks(oldConfig)).toBe(true);
    // The node's periodic reconcile keeps both (the grace key is in its desired set).
    await new Promise((resolve) => setTimeout(resolve, 2500));
    expect(await node.peers()).toEqual(expect.arrayContaining([firstKey, rotated.public_key]));
  }, 90_000);

  it('after 24 hours the old key leaves the node: the old config stops, the new one keeps working', async () => {
    const { public_key: currentKey } = await theDevice(deviceId);
    await advanceHours(23);
    expect(await node.peers()).toContain(firstKey);
    await advanceHours(1.5);
    await eventually(async () => !(await node.peers()).includes(firstKey), 10_000);
    expect(await theDevice(deviceId)).toMatchObject({ public_key: currentKey, previous_key_expires_at: null });
    expect(await tunnelWorks(oldConfig, 3000)).toBe(false);
    expect(await tunnelWorks(await download(deviceId))).toBe(true);
  }, 90_000);

  it('a suspended device is not rotated when due: its date moves on, and no mail goes out', async () => {
    const before = await theDevice(deviceId);
    const mails = stack.smtp.messages.length;
    expect((await owner.call('PATCH', `/api/devices/${deviceId}`, { is_active: false })).statusCode).toBe(200);
    await advanceHours(31 * 24);
    const after = await theDevice(deviceId);
    expect(after.public_key).toBe(before.public_key);
    expect(new Date(after.next_key_rotation_at).getTime()).toBeGreaterThan(
      new Date(before.next_key_rotation_at).getTime(),
    );
    expect(stack.smtp.messages.length).toBe(mails);
    expect((await owner.call('PATCH', `/api/devices/${deviceId}`, { is_active: true })).statusCode).toBe(200);
  }, 30_000);

  it('turning the schedule off stops further rotations', async () => {
    const off = await owner.call('PATCH', `/api/devices/${deviceId}/key-rotation`, { every_days: null });
    expect(off.data.device).toMatchObject({ key_rotation_days: null, next_key_rotation_at: null });
    const { public_key: currentKey } = await theDevice(deviceId);
    await advanceHours(100 * 24);
    expect((await theDevice(deviceId)).public_key).toBe(currentKey);
  }, 30_000);
});
