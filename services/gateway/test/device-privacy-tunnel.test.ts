import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import jsQRModule from 'jsqr';
import { PNG } from 'pngjs';
import { eventually, wireguardLabProblem } from '@qw/testkit';
import { exceptLocalAllowedIps, nodeSubnets, parseClientConfig, resolverAddresses } from '@qw/wireguard';
import { LabNode } from './support/nodes.ts';
import { Client, startStack, type Stack } from './support/stack.ts';
import { confirmedPerson, customerWithPlan, deviceAdded, deviceServices } from './support/products.ts';
import { ownOrganization } from './support/organizations.ts';

/**
 * Tunnel privacy per device (issue #25) through the gateway, on real WireGuard: the add form's
 * blocking and split tunnel reach the file, the QR code and the mail; a change on the row gives a
 * new DNS line and AllowedIPs; the client's interface routes exactly what the file says (the
 * node's address is reached with "except local networks", not with a custom route elsewhere);
 * refusals change nothing.
 */
const problem = await wireguardLabProblem();
if (problem) console.info(`device-privacy-tunnel: skipped because ${problem}`);

const jsQR = jsQRModule as unknown as (
  data: Uint8ClampedArray,
  width: number,
  height: number,
) => { data: string } | null;

let stack: Stack;
let node: LabNode;
let owner: Client;

const provisioningDb = () => stack.services.provisioning!.db;
const deviceRow = (id: string) =>
  provisioningDb().selectFrom('devices').selectAll().where('id', '=', id).executeTakeFirstOrThrow();

async function download(client: Client, deviceId: string): Promise<string> {
  const response = await client.call('GET', `/api/device/${deviceId}/config`);
  expect(response.statusCode).toBe(200);
  return response.body;
}

/** What the client's interface routes into the tunnel now, as `wg` prints it. */
async function clientAllowedIps(): Promise<string[]> {
  const out = await node.lab.exec(node.lab.clientNs, ['wg', 'show', node.lab.clientIface, 'allowed-ips']);
  return out
    .trim()
    .split(/\s+/)
    .slice(1)
    .filter((entry) => entry !== '(none)');
}

describe.skipIf(problem !== null)('tunnel privacy per device', () => {
  beforeAll(async () => {
    stack = await startStack({ label: 'pdprivacy', extra: deviceServices });
    node = await LabNode.start(stack, 'privacy-device-node', { NODE_IP: '203.0.113.60' });
    owner = (await confirmedPerson(stack, 'priya@example.com', { plan: 'personal' })).client;
  }, 120_000);

  afterAll(async () => {
    await node?.stop();
    await stack?.stop();
  });

  it('adds a device with blocking and "except local networks": file, QR code and mail follow; the tunnel routes it', async () => {
    const device = await deviceAdded(owner, {
      name: 'Privacy laptop',
      platform: 'linux',
      blocking: ['ads', 'malware', 'ads'],
      split_tunnel: 'except_local',
    });
    expect(device).toMatchObject({ blocking: ['ads', 'malware'], split_tunnel: 'except_local', custom_routes: [] });
    const subnets = nodeSubnets(0);
    const resolver = resolverAddresses(subnets, 5);
    expect(resolver).toEqual({ ipv4: '100.64.0.5', ipv6: 'fd7a:5157:7769:ffff::5' });
    const expected = exceptLocalAllowedIps({
      nodeIpv4Cidr: subnets.ipv4Cidr,
      nodeIpv6Cidr: subnets.ipv6Cidr,
      resolver,
    });

    const config = await download(owner, device.id);
    const parsed = parseClientConfig(config);
    expect(parsed.dns).toEqual(['100.64.0.5', 'fd7a:5157:7769:ffff::5']);
    expect(parsed.allowedIps).toEqual(expected);
    expect(config).not.toMatch(/1\.1\.1\.1|2606:4700/);

    // The QR code carries the same file.
    const links = await owner.call('POST', `/api/devices/${device.id}/config-link`);
    const qr = await new Client(stack.app).call('GET', links.data.qr_url);
    const png = PNG.sync.read(qr.rawPayload);
    expect(jsQR(new Uint8ClampedArray(png.data), png.width, png.height)?.data).toBe(config);

    // The mail's attachment too.
    const mail = await stack.smtp.waitFor((m) => m.subject === 'Your Quietwire configuration for Privacy laptop');
    const attached = mail.attachments.find((a) => a.filename?.endsWith('.conf'))!;
    expect(attached.content.toString()).toBe(config);

    await eventually(async () => (await node.peers()).includes(device.public_key), 10_000);
    await node.connect(config);
    // WireGuard itself holds exactly the file's AllowedIPs (10.64.0.0/16 among them; 100.64.0.5 lies in 64.0.0.0/2).
    expect((await clientAllowedIps()).sort()).toEqual([...expected].sort());
    expect(expected).toContain('10.64.0.0/16');
    // 10.64.0.1 is inside 10/8, a local range, yet kept in the tunnel: the node answers.
    expect(await eventually(() => node.ping(), 15_000, 100)).toBe(true);
  });

  it('changes blocking and split on the row: a new DNS line and AllowedIPs; a custom route elsewhere leaves the node out', async () => {
    const device = await deviceAdded(owner, { name: 'Privacy phone', platform: 'android' });
    expect(device).toMatchObject({ blocking: [], split_tunnel: 'all', custom_routes: [] });
    const first = parseClientConfig(await download(owner, device.id));
    // No blocking: the node's own tunnel addresses, whole tunnel.
    expect(first.dns).toEqual(['10.64.0.1', 'fd7a:5157:7769::1']);
    expect(first.allowedIps).toEqual(['0.0.0.0/0', '::/0']);

    const changed = await owner.call('PATCH', `/api/devices/${device.id}/privacy`, {
      blocking: ['trackers', 'gambling'],
      split_tunnel: 'custom',
      custom_routes: ['203.0.113.7/24', '2001:db8::/32', '203.0.113.0/24'],
    });
    expect(changed.statusCode).toBe(200);
    expect(changed.data).toMatchObject({
      config_changed: true,
      device: {
        blocking: ['trackers', 'gambling'],
        split_tunnel: 'custom',
        custom_routes: ['203.0.113.0/24', '2001:db8::/32'],
      },
    });
    const again = await owner.call('PATCH', `/api/devices/${device.id}/privacy`, {
      blocking: ['gambling', 'trackers'],
    });
    expect(again.data.config_changed).toBe(false);

    const config = await download(owner, device.id);
    const parsed = parseClientConfig(config);
    expect(parsed.dns).toEqual(['100.64.0.18', 'fd7a:5157:7769:ffff::12']);
    expect(parsed.allowedIps).toEqual([
      '203.0.113.0/24',
      '2001:db8::/32',
      '100.64.0.18/32',
      'fd7a:5157:7769:ffff::12/128',
    ]);

    await eventually(async () => (await node.peers()).includes(device.public_key), 10_000);
    await node.connect(config);
    expect(await clientAllowedIps()).toEqual(
      expect.arrayContaining(['203.0.113.0/24', '100.64.0.18/32', '2001:db8::/32', 'fd7a:5157:7769:ffff::12/128']),
    );
    // The node's own address is in none of those: WireGuard sends nothing to it.
    expect(await node.ping(2)).toBe(false);

    // Back to all traffic: the routes go, and the node answers again.
    const all = await owner.call('PATCH', `/api/devices/${device.id}/privacy`, { split_tunnel: 'all' });
    expect(all.data.device).toMatchObject({ split_tunnel: 'all', custom_routes: [] });
    await node.connect(await download(owner, device.id));
    expect(await eventually(() => node.ping(), 15_000, 100)).toBe(true);

    // The export lists the choices.
    const exported = await owner.call('GET', '/api/me/export');
    expect(exported.statusCode).toBe(200);
    const mine = exported.data.devices.find((d: { id: string }) => d.id === device.id);
    expect(mine).toMatchObject({ blocking: ['trackers', 'gambling'], split_tunnel: 'all', custom_routes: [] });
  });

  it('refuses bad input with a stable code and changes nothing; a stranger gets 404', async () => {
    const device = await deviceAdded(owner, { name: 'Privacy tablet', platform: 'ios', blocking: ['adult'] });
    const before = await deviceRow(device.id);
    const cases: Array<[unknown, number, string]> = [
      [{ blocking: ['popups'] }, 400, 'validation_failed'],
      [{ split_tunnel: 'most' }, 400, 'validation_failed'],
      [{ extra: true }, 400, 'validation_failed'],
      [{ split_tunnel: 'custom' }, 422, 'invalid_routes'],
      [{ split_tunnel: 'custom', custom_routes: ['example.com'] }, 422, 'invalid_routes'],
      [{ split_tunnel: 'custom', custom_routes: ['10.0.0.0/33'] }, 422, 'invalid_routes'],
      [
        { split_tunnel: 'custom', custom_routes: Array.from({ length: 33 }, (_, i) => `10.${i}.0.0/16`) },
        422,
        'invalid_routes',
      ],
      [{ custom_routes: ['10.0.0.0/8'] }, 422, 'invalid_routes'],
      [{ split_tunnel: 'except_local', custom_routes: ['10.0.0.0/8'] }, 422, 'invalid_routes'],
    ];
    for (const [body, status, code] of cases) {
      const response = await owner.call('PATCH', `/api/devices/${device.id}/privacy`, body);
      expect(response.statusCode, JSON.stringify(body)).toBe(status);
      expect(response.data.error.code, JSON.stringify(body)).toBe(code);
      expect(typeof response.data.error.message).toBe('string');
    }
    const routes = await owner.call('PATCH', `/api/devices/${device.id}/privacy`, {
      split_tunnel: 'custom',
      custom_routes: ['example.com'],
    });
    expect(routes.data.error.message).toMatch(/"example.com" is not an IP address or network/);
    const add = await owner.call('POST', '/api/devices', {
      name: 'Bad routes',
      platform: 'linux',
      split_tunnel: 'custom',
      custom_routes: [],
    });
    expect(add.statusCode).toBe(422);
    expect(add.data.error.code).toBe('invalid_routes');

    const stranger = await customerWithPlan(stack, 'quentin@example.com');
    const hidden = await stranger.call('PATCH', `/api/devices/${device.id}/privacy`, { blocking: [] });
    expect(hidden.statusCode).toBe(404);
    expect(await deviceRow(device.id)).toEqual(before);
    expect(
      (await provisioningDb().selectFrom('devices').select('name').where('name', '=', 'Bad routes').execute()).length,
    ).toBe(0);
  });

  it("an organization's owner sets it on the add form and changes it on a member's device", async () => {
    const orgOwner = await customerWithPlan(stack, 'olga@example.com', 'business10');
    const orgId = await ownOrganization(orgOwner);
    const device = await deviceAdded(
      orgOwner,
      { name: 'Team laptop', blocking: ['malware'], split_tunnel: 'except_local' },
      `/api/orgs/${orgId}/devices`,
    );
    expect(device).toMatchObject({ org_id: orgId, blocking: ['malware'], split_tunnel: 'except_local' });
    const listed = await orgOwner.call('GET', `/api/orgs/${orgId}/devices`);
    expect(listed.data.devices.find((d: { id: string }) => d.id === device.id)).toMatchObject({
      blocking: ['malware'],
      split_tunnel: 'except_local',
    });
    const changed = await orgOwner.call('PATCH', `/api/devices/${device.id}/privacy`, { blocking: [] });
    expect(changed.data).toMatchObject({ config_changed: true, device: { blocking: [] } });
    // The organization's audit log records it (the preset, never the routes).
    const entry = await eventually(
      async () => {
        const log = await orgOwner.call('GET', `/api/orgs/${orgId}/audit`);
        return (log.data.entries ?? []).find((e: { kind: string }) => e.kind === 'device.privacy_changed');
      },
      10_000,
      100,
    );
    expect(entry).toMatchObject({
      target: { kind: 'device', id: device.id },
      details: { blocking: [], split_tunnel: 'except_local' },
    });
  });
});
