import { spawn } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import { createInterface } from 'node:readline';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  billingEvents,
  createDeviceRpc,
  deviceConfigRpc,
  identityEvents,
  listDevicesRpc,
  registerNodeRpc,
  subscriptionActivated,
} from '@qw/contracts';
import { RpcClient, callerTokenSigner, generateCallerKeyPair, startService, type RunningService } from '@qw/platform';
import { keepReporting, repoRoot, startServiceAlone, type ServiceAlone } from '@qw/testkit';
import { PrivateKeyVaultError, decryptPrivateKey, sealingKeyId } from '@qw/wireguard';
import type { ProvisioningDatabase } from '../src/database.ts';
import { provisioningService } from '../src/app.ts';
import { serveProvisioningNeighbours } from './support/neighbours.ts';

/**
 * Replacing the two keys provisioning holds, with provisioning running as it does in production
 * (on its own database and NATS server, the product's permissions on):
 *
 * - the gateway's caller-token key: while a service holds the previous public key beside the new
 *   one (CALLER_TOKEN_PUBLIC_KEY_PREVIOUS), a caller the gateway signed with the old private key is
 *   still believed; once the previous key is dropped it is refused as a forgery would be.
 * - the sealing key of device private keys: devices made under the old key; provisioning restarted
 *   with the new key and the old as PRIVATE_KEY_ENCRYPTION_KEY_PREVIOUS; scripts/rotate-sealing-key.ts
 *   run in small batches, killed after its first batch and run again until none is left (and once
 *   more, which finds nothing); provisioning restarted with the new key alone. Every configuration
 *   renders the private key it rendered before, and no stored key opens with the old key.
 */
const nodeName = `sr-${randomBytes(3).toString('hex')}`;
const people = [randomUUID(), randomUUID(), randomUUID()];
const subscriptionOf = new Map<string, string>(people.map((person) => [person, randomUUID()]));
const devicesEach = 5;
const oldSealing = randomBytes(32).toString('base64');
const newSealing = randomBytes(32).toString('base64');
const oldCaller = generateCallerKeyPair();
const newCaller = generateCallerKeyPair();
const signedWith = (privateKey: string) => {
  const sign = callerTokenSigner(privateKey);
  return (userId: string) => sign({ userId, accountType: 'personal', isAdmin: false, emailVerified: true } as never);
};
const byOldKey = signedWith(oldCaller.privateKey);
const byNewKey = signedWith(newCaller.privateKey);

let alone: ServiceAlone;
let databaseUrl: string;
let provisioning: RunningService<ProvisioningDatabase> | undefined;
let rpc: RpcClient;
/** Each device's private key as its first configuration said, by device id, and whose it is. */
const keysBefore = new Map<string, { owner: string; privateKey: string }>();

async function startProvisioning(keys: {
  sealing: string;
  sealingPrevious?: string;
  caller: string;
  callerPrevious?: string;
}): Promise<void> {
  await provisioning?.stop();
  provisioning = await startService(
    provisioningService({
      PRIVATE_KEY_ENCRYPTION_KEY: keys.sealing,
      PRIVATE_KEY_ENCRYPTION_KEY_PREVIOUS: keys.sealingPrevious,
      VPN_DNS: '10.64.0.1',
      MAIL_FROM: 'Quietwire <no-reply@quietwire.test>',
      MAIL_DIR: 'var/mail-test',
      NODE_ENV: 'test',
    }),
    {
      DATABASE_URL: databaseUrl,
      ...alone.bus.env('provisioning'),
      BUS_NAMESPACE: '',
      LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'silent',
      CALLER_TOKEN_PUBLIC_KEY: keys.caller,
      CALLER_TOKEN_PUBLIC_KEY_PREVIOUS: keys.callerPrevious,
    },
  );
}

const privateKeyOf = (config: string) => /^PrivateKey = (.+)$/m.exec(config)?.[1];

/** Every device's private key as its configuration renders it now. */
async function renderedKeys(sign: (userId: string) => ReturnType<typeof byNewKey>): Promise<Map<string, string>> {
  const rendered = new Map<string, string>();
  for (const [deviceId, { owner }] of keysBefore) {
    const { config } = await rpc.request(deviceConfigRpc, { device_id: deviceId }, sign(owner));
    rendered.set(deviceId, privateKeyOf(config) ?? '');
  }
  return rendered;
}

const sealedRows = () =>
  provisioning!.db.selectFrom('devices').select(['id', 'private_key_sealed', 'private_key_sealed_by']).execute();

/** scripts/rotate-sealing-key.ts with provisioning's role and both keys; `onLine` may kill it. */
function runRotation(
  args: string[],
  onLine: (line: string, kill: () => void) => void = () => undefined,
): Promise<{ code: number | null; signal: string | null; lines: string[] }> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'scripts/rotate-sealing-key.ts', ...args], {
    cwd: repoRoot,
    env: {
      PATH: process.env.PATH ?? '',
      DATABASE_URL: databaseUrl,
      PRIVATE_KEY_ENCRYPTION_KEY: newSealing,
      PRIVATE_KEY_ENCRYPTION_KEY_PREVIOUS: oldSealing,
    },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const lines: string[] = [];
  createInterface({ input: child.stdout }).on('line', (line) => {
    lines.push(line);
    onLine(line, () => child.kill('SIGKILL'));
  });
  return new Promise((resolve) =>
    child.once('close', (code, signal) => resolve({ code, signal: signal ?? null, lines })),
  );
}

beforeAll(async () => {
  alone = await startServiceAlone('secret-rotation', { billing: billingEvents, identity: identityEvents });
  await serveProvisioningNeighbours(alone, (ask) => ({
    plan_code: 'personal',
    status: 'active',
    subscription_id: subscriptionOf.get(ask.user_id ?? '') ?? randomUUID(),
  }));
  databaseUrl = await alone.database.provision('provisioning');
  await startProvisioning({ sealing: oldSealing, caller: oldCaller.publicKey });
  rpc = new RpcClient(await alone.connect('gateway'));
  const nodeBus = await alone.connect((await alone.bus.addNode(nodeName)).NATS_USER);
  const node = new RpcClient(nodeBus);
  await node.request(
    registerNodeRpc,
    {
      region: 'eu-test',
      endpoint: '198.51.100.9:51820',
      public_key: randomBytes(32).toString('base64'),
      ip: '198.51.100.9',
      tags: [],
    },
    undefined,
    { params: { node: nodeName } },
  );
  keepReporting(nodeBus, nodeName);
  for (const person of people) {
    await alone.publish(subscriptionActivated, {
      subscriptionId: subscriptionOf.get(person)!,
      userId: person,
      orgId: null,
      planCode: 'personal',
      status: 'active',
      currentPeriodEnd: null,
      cancelAtPeriodEnd: false,
    });
  }
}, 120_000);

afterAll(async () => {
  await provisioning?.stop();
  await alone?.stop();
});

describe('under the old keys', () => {
  it('makes devices whose rows name the old sealing key, and renders their configurations', async () => {
    for (const person of people) {
      for (let n = 0; n < devicesEach; n += 1) {
        const { device } = await rpc.request(
          createDeviceRpc,
          { name: `phone ${n}`, platform: 'android' },
          byOldKey(person),
        );
        keysBefore.set(device.id, { owner: person, privateKey: '' });
      }
    }
    for (const [deviceId, key] of await renderedKeys(byOldKey)) keysBefore.get(deviceId)!.privateKey = key;
    expect([...keysBefore.values()].every(({ privateKey }) => /^[A-Za-z0-9+/]{43}=$/.test(privateKey))).toBe(true);
    const rows = await sealedRows();
    expect(rows).toHaveLength(people.length * devicesEach);
    expect(new Set(rows.map((row) => row.private_key_sealed_by))).toEqual(new Set([sealingKeyId(oldSealing)]));
    // Rows sealed before rows named their key (the migration leaves them so): three of them.
    await provisioning!.db
      .updateTable('devices')
      .set({ private_key_sealed_by: null })
      .where(
        'id',
        'in',
        rows.slice(0, 3).map((row) => row.id),
      )
      .execute();
  });
});

describe('during the rotation: new keys, the previous ones held too', () => {
  beforeAll(() =>
    startProvisioning({
      sealing: newSealing,
      sealingPrevious: oldSealing,
      caller: newCaller.publicKey,
      callerPrevious: oldCaller.publicKey,
    }),
  );

  it('believes a caller signed with either gateway key', async () => {
    const [ann] = people as [string];
    expect((await rpc.request(listDevicesRpc, {}, byOldKey(ann))).devices).toHaveLength(devicesEach);
    expect((await rpc.request(listDevicesRpc, {}, byNewKey(ann))).devices).toHaveLength(devicesEach);
  });

  it('renders every configuration as before, from rows of either sealing key', async () => {
    const rendered = await renderedKeys(byNewKey);
    for (const [deviceId, { privateKey }] of keysBefore) expect(rendered.get(deviceId)).toBe(privateKey);
  });

  it('re-seals in batches: killed after its first batch, run again until none is left, then finds nothing', async () => {
    const total = keysBefore.size;
    const killed = await runRotation(['--batch-size', '4', '--pause-ms', '60000'], (line, kill) => {
      if (line.startsWith('re-sealed ')) kill();
    });
    expect(killed.signal).toBe('SIGKILL');
    expect(killed.lines[0]).toBe(`re-sealed 4 (4 in this run); ${total - 4} left`);
    const newId = sealingKeyId(newSealing);
    const afterKill = await sealedRows();
    expect(afterKill.filter((row) => row.private_key_sealed_by === newId)).toHaveLength(4);

    const resumed = await runRotation(['--batch-size', '4']);
    expect(resumed.code).toBe(0);
    expect(resumed.lines.at(-1)).toBe(`done: ${total - 4} re-sealed with ${newId}; 0 left`);
    expect((await sealedRows()).every((row) => row.private_key_sealed_by === newId)).toBe(true);

    const again = await runRotation([]);
    expect(again.code).toBe(0);
    expect(again.lines).toEqual([`done: 0 re-sealed with ${newId}; 0 left`]);
    const check = await runRotation(['--check']);
    expect(check.code).toBe(0);
    expect(check.lines).toEqual([`0 device keys are not sealed by the current key (${newId})`]);
  });
});

describe('after the rotation: the new keys alone', () => {
  beforeAll(() => startProvisioning({ sealing: newSealing, caller: newCaller.publicKey }));

  it('renders every configuration with the private key it had', async () => {
    const rendered = await renderedKeys(byNewKey);
    for (const [deviceId, { privateKey }] of keysBefore) expect(rendered.get(deviceId)).toBe(privateKey);
  });

  it('opens no stored key with the old sealing key', async () => {
    const rows = await sealedRows();
    expect(rows).toHaveLength(keysBefore.size);
    for (const row of rows) {
      expect(() => decryptPrivateKey(row.private_key_sealed!, oldSealing, row.id)).toThrow(PrivateKeyVaultError);
      expect(decryptPrivateKey(row.private_key_sealed!, newSealing, row.id)).toBe(keysBefore.get(row.id)!.privateKey);
    }
  });

  it('refuses a caller signed with the old gateway key', async () => {
    const [ann] = people as [string];
    await expect(rpc.request(listDevicesRpc, {}, byOldKey(ann))).rejects.toMatchObject({ code: 'invalid_token' });
    expect((await rpc.request(listDevicesRpc, {}, byNewKey(ann))).devices).toHaveLength(devicesEach);
  });
});
