import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import jsQRModule from 'jsqr';
import { PNG } from 'pngjs';
import { eventually, wireguardLabProblem } from '@qw/testkit';
import { parseClientConfig } from '@qw/wireguard';
import { LabNode } from './support/nodes.ts';
import { Client, startStack, type Stack } from './support/stack.ts';
import { customerWithPlan, deviceAdded, deviceServices } from './support/products.ts';

const problem = await wireguardLabProblem();
if (problem) console.info(`devices-tunnel: skipped because ${problem}`);

let stack: Stack;
let node: LabNode;
let owner: Client;

async function download(client: Client, deviceId: string): Promise<string> {
  const response = await client.call('GET', `/api/device/${deviceId}/config`);
  expect(response.statusCode).toBe(200);
  return response.body;
}

describe.skipIf(problem !== null)('devices on real WireGuard', () => {
  beforeAll(async () => {
    stack = await startStack({ label: 'tunnel', extra: deviceServices });
    node = await LabNode.start(stack, 'lab-node-1', { NODE_IP: '203.0.113.50', NODE_SSH_USER: 'ops' });
    owner = await customerWithPlan(stack, 'nina@example.com');
  }, 120_000);

  afterAll(async () => {
    await node?.stop();
    await stack?.stop();
  });

  it('connects a device end to end: add, download its config, bring up a real client, ping the node; Overview says Online', async () => {
    const device = await deviceAdded(owner, { name: '  Nina’s laptop ', platform: 'linux' });
    expect(device).toMatchObject({
      name: 'Nina’s laptop',
      platform: 'linux',
      is_active: true,
      client_keys: false,
      org_id: null,
    });
    expect(device.addresses).toEqual(['10.64.0.2/32', 'fd7a:5157:7769::2/128']);
    await eventually(async () => (await node.peers()).includes(device.public_key), 10_000);

    const response = await owner.call('GET', `/api/device/${device.id}/config`);
    expect(response.headers['content-disposition']).toMatch(/^attachment; filename="[a-z0-9_-]{1,15}\.conf"$/);
    expect(response.headers['cache-control']).toBe('no-store');
    const config = response.body;
    const parsed = parseClientConfig(config);
    expect(parsed.allowedIps).toEqual(['0.0.0.0/0', '::/0']);
    expect(parsed.persistentKeepalive).toBe(25);
    expect(parsed.endpoint).toBe(`${node.lab.nodeUnderlay}:51820`);

    await node.connect(config);
    expect(await eventually(() => node.ping(), 15_000, 100)).toBe(true);
    const overview = await eventually(
      async () => {
        const answer = await owner.call('GET', '/api/overview');
        return answer.data.connected === 1 ? answer : undefined;
      },
      30_000,
      250,
    );
    expect(overview.data).toEqual({ devices: 1, connected: 1, vpn_status: 'Online' });
    // Connected comes from the node's handshake watch (within a second), the bytes from its next
    // peer sample: the list shows both once that sample has landed.
    const listed = await eventually(
      async () => {
        const answer = await owner.call('GET', '/api/devices');
        return answer.data.devices[0]?.rx_bytes > 0 ? answer : undefined;
      },
      30_000,
      250,
    );
    expect(listed.data.devices[0]).toMatchObject({ id: device.id, is_connected: true });
    expect(listed.data.devices[0].rx_bytes).toBeGreaterThan(0);

    const latest = await sql<{
      endpoint: string | null;
    }>`select endpoint from device_latest_telemetry where device_id = ${device.id}`.execute(
      stack.services.telemetry!.db,
    );
    expect(latest.rows[0]!.endpoint).toMatch(/^10\.231\.\d+\.0\/24$/);
    const traffic = await sql<{ n: number }>`select count(*)::int as n from telemetry where rx_bytes > 0`.execute(
      stack.services.telemetry!.db,
    );
    expect(traffic.rows[0]!.n).toBeGreaterThan(0);
  }, 90_000);

  it('suspending removes the peer and the ping fails; activating brings it back', async () => {
    const [device] = (await owner.call('GET', '/api/devices')).data.devices;
    const suspended = await owner.call('PATCH', `/api/devices/${device.id}`, { is_active: false });
    expect(suspended.data.device.is_active).toBe(false);
    await eventually(async () => !(await node.peers()).includes(device.public_key), 10_000);
    expect(await node.ping(1)).toBe(false);
    await owner.call('PATCH', `/api/devices/${device.id}`, { is_active: true });
    await eventually(async () => (await node.peers()).includes(device.public_key), 10_000);
    // The client retries its handshake every 5 s (WireGuard's REKEY_TIMEOUT): allow several rounds.
    expect(await eventually(() => node.ping(), 30_000, 100)).toBe(true);
  }, 90_000);

  it('after "Request key" the old config no longer connects and the new one does', async () => {
    const [device] = (await owner.call('GET', '/api/devices')).data.devices;
    const oldConfig = await download(owner, device.id);
    const rotated = await owner.call('POST', `/api/devices/${device.id}/key`, {});
    expect(rotated.statusCode).toBe(200);
    expect(rotated.data.device.public_key).not.toBe(device.public_key);
    await eventually(async () => {
      const peers = await node.peers();
      return peers.includes(rotated.data.device.public_key) && !peers.includes(device.public_key);
    }, 10_000);
    await node.connect(oldConfig);
    expect(await node.ping(1)).toBe(false);
    await node.connect(await download(owner, device.id));
    expect(await eventually(() => node.ping(), 15_000, 100)).toBe(true);
  }, 60_000);

  it('serves the same config as a QR image that decodes to exactly the file', async () => {
    const [device] = (await owner.call('GET', '/api/devices')).data.devices;
    const config = await download(owner, device.id);
    const qr = await owner.call('GET', `/api/device/${device.id}/config?format=qr`);
    expect(qr.headers['content-type']).toBe('image/png');
    const png = PNG.sync.read(qr.rawPayload);
    const jsQR = jsQRModule as unknown as (
      data: Uint8ClampedArray,
      width: number,
      height: number,
    ) => { data: string } | null;
    const decoded = jsQR(new Uint8ClampedArray(png.data), png.width, png.height);
    expect(decoded?.data).toBe(config);
  });

  it('opens the config in a new tab through a link that works once, for this device and format only', async () => {
    const [device] = (await owner.call('GET', '/api/devices')).data.devices;
    const link = await owner.call('POST', `/api/devices/${device.id}/config-link`);
    expect(link.data.expires_in).toBe(60);
    const anonymous = new Client(stack.app);
    const otherDevice = link.data.url.replace(device.id, '00000000-0000-4000-8000-000000000000');
    expect((await anonymous.call('GET', otherDevice)).statusCode).toBe(410);
    const file = await anonymous.call('GET', link.data.url);
    expect(file.statusCode).toBe(200);
    expect(file.body).toContain('[Interface]');
    // Once only: a link in a browser's history or a proxy log is spent.
    const again = await anonymous.call('GET', link.data.url);
    expect(again.statusCode).toBe(410);
    expect(again.data.error.code).toBe('link_expired');
    // The QR link opens the QR image, and only that.
    const qrToken = new URL(link.data.qr_url, 'http://x').searchParams.get('token');
    expect((await anonymous.call('GET', `/api/device/${device.id}/config?token=${qrToken}`)).statusCode).toBe(410);
    const fresh = await owner.call('POST', `/api/devices/${device.id}/config-link`);
    const qr = await anonymous.call('GET', fresh.data.qr_url);
    expect(qr.statusCode).toBe(200);
    expect(qr.headers['content-type']).toBe('image/png');
    expect((await anonymous.call('GET', `/api/device/${device.id}/config?token=forged`)).statusCode).toBe(410);
    expect((await anonymous.call('GET', `/api/device/${device.id}/config`)).statusCode).toBe(401);
  });

  it('a config link is no access token: as a bearer it opens nothing', async () => {
    const [device] = (await owner.call('GET', '/api/devices')).data.devices;
    const link = await owner.call('POST', `/api/devices/${device.id}/config-link`);
    const token = new URL(link.data.url, 'http://x').searchParams.get('token')!;
    const thief = new Client(stack.app);
    thief.accessToken = token;
    for (const [method, url, body] of [
      ['GET', '/api/me', undefined],
      ['GET', '/api/devices', undefined],
      ['POST', '/api/devices', { name: 'Stolen', platform: 'linux' }],
      ['GET', `/api/device/${device.id}/config`, undefined],
    ] as const) {
      const response = await thief.call(method, url, body);
      expect(response.statusCode, `${method} ${url}`).toBe(401);
      expect(response.data.error.code).toBe('invalid_token');
    }
    // And the link itself is still unspent for its owner's tab.
    expect((await new Client(stack.app).call('GET', link.data.url)).statusCode).toBe(200);
  });

  it('puts right, within one cycle, peers added or removed behind the agent', async () => {
    const [device] = (await owner.call('GET', '/api/devices')).data.devices;
    const stray = 'xTIBA5rboUvnH4htodjb6e697QjLERt1NAB4mZqp8Dg=';
    await node.lab.exec(node.lab.nodeNs, [
      'wg',
      'set',
      node.lab.nodeIface,
      'peer',
      stray,
      'allowed-ips',
      '10.64.9.9/32',
    ]);
    await node.lab.exec(node.lab.nodeNs, ['wg', 'set', node.lab.nodeIface, 'peer', device.public_key, 'remove']);
    await eventually(
      async () => {
        const peers = await node.peers();
        return !peers.includes(stray) && peers.includes(device.public_key);
      },
      6_000,
      200,
    );
    const dump = await node.agent.host.dump();
    expect(dump.peers.find((p) => p.publicKey === device.public_key)?.allowedIps.sort()).toEqual([
      '10.64.0.2/32',
      'fd7a:5157:7769::2/128',
    ]);
  }, 20_000);

  it('an agent that was offline while devices changed catches up when it starts', async () => {
    await node.stopAgent();
    const added = await owner.call('POST', '/api/devices', { name: 'Phone', platform: 'android' });
    const [, laptop] = (await owner.call('GET', '/api/devices')).data.devices;
    await owner.call('PATCH', `/api/devices/${laptop.id}`, { is_active: false });
    await node.startAgent();
    const peers = await node.peers();
    expect(peers).toContain(added.data.device.public_key);
    expect(peers).not.toContain(laptop.public_key);
    await owner.call('PATCH', `/api/devices/${laptop.id}`, { is_active: true });
  }, 30_000);

  it('removing a device removes its peer and releases its address', async () => {
    const devices = (await owner.call('GET', '/api/devices')).data.devices;
    const phone = devices.find((d: { name: string }) => d.name === 'Phone');
    expect((await owner.call('DELETE', `/api/devices/${phone.id}`)).statusCode).toBe(204);
    await eventually(async () => !(await node.peers()).includes(phone.public_key), 10_000);
    const again = await owner.call('POST', '/api/devices', { name: 'Tablet', platform: 'ios' });
    expect(again.data.device.addresses).toEqual(phone.addresses);
  }, 30_000);

  it('mails the configuration with the .conf attached and the QR code inline when the email is verified', async () => {
    const mail = await stack.smtp
      .waitFor((m) => m.subject === 'Your Quietwire configuration for Tablet', 1_500)
      .catch(() => undefined);
    // The owner's email is not verified yet: nothing may have been sent.
    expect(mail).toBeUndefined();
    const verifyMail = await stack.smtp.waitFor(
      (m) =>
        (m.to as { text: string }).text.includes('nina@example.com') &&
        m.subject === 'Confirm your email for Quietwire',
    );
    const token = /token=([\w-]+)/.exec(verifyMail.text!)![1]!;
    // The first verification answers the step where the owner chooses the password, which signs in again.
    // From the mail, where no token is held; it ends the sign-up's session (and its access token).
    owner.accessToken = undefined;
    const verified = await owner.call('POST', '/api/auth/verify', { token });
    await owner.call('POST', '/api/auth/password/set', {
      token: verified.data.set_password_token,
      password: 'correct horse battery',
    });
    const created = await owner.call('POST', '/api/devices', { name: 'Desk PC', platform: 'windows' });
    const sent = await stack.smtp.waitFor((m) => m.subject === 'Your Quietwire configuration for Desk PC');
    const conf = sent.attachments.find((a) => a.filename?.endsWith('.conf'))!;
    const qr = sent.attachments.find((a) => a.contentType === 'image/png')!;
    expect(conf.content.toString()).toBe(await download(owner, created.data.device.id));
    expect(qr.cid).toBe('config-qr');
    expect(sent.text).toContain('1. Install WireGuard from wireguard.com/install.');
    expect(sent.text).toContain(
      'The attached file contains a private key. Do not forward this email or share the file.',
    );
  }, 30_000);
});
