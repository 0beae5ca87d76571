import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { registerNodeRpc } from '@qw/contracts';
import { eventually } from '@qw/testkit';
import { generateKeyPair } from '@qw/wireguard';
import { Client, signUpConfirmed, startStack, type Stack } from './support/stack.ts';
import { deviceServices } from './support/products.ts';

/**
 * The public /servers list through the gateway, from provisioning's real nodes: every region,
 * cities with live status, no addresses or host names, cached a few seconds, and a drained city
 * reads down once the cache turns over.
 */
let stack: Stack;
let admin: Client;
const ids: Record<string, string> = {};

/** A node as its agent registers it (its own bus user), saying its city (and where its tunnel traffic leaves from). */
async function addNode(name: string, region: string, city: string | null, tags: string[] = [], egress?: string[]) {
  const { rpc } = await stack.connectNode(name);
  const ip = `198.51.100.${Object.keys(ids).length + 20}`;
  const answer = await rpc.request(
    registerNodeRpc,
    {
      region,
      endpoint: `${ip}:51820`,
      public_key: generateKeyPair().publicKey,
      ip,
      tags,
      ...(city ? { city } : {}),
      ...(egress ? { egress } : {}),
    },
    undefined,
    { params: { node: name } },
  );
  ids[name] = answer.node_id;
}

const provisioningDb = () => stack.services.provisioning!.db;
const list = () => new Client(stack.app).call('GET', '/api/servers');

describe('public /api/servers', () => {
  beforeAll(async () => {
    stack = await startStack({ label: 'pubservers', adminEmails: ['ops@quietwire.test'], extra: deviceServices });
    admin = await signUpConfirmed(stack, 'ops@quietwire.test', '198.51.100.90');
    await addNode('fra-1', 'europe', 'Frankfurt', [], ['198.51.100.120', '2001:DB8:120:0::1']);
    await addNode('fra-2', 'europe', 'Frankfurt');
    await addNode('par-1', 'europe', 'Paris');
    await addNode('sgp-1', 'asia', 'Singapore', ['gaming'], ['198.51.100.123']);
    await addNode('legacy-1', 'ap-south', null);
    // A node that has not reported for two minutes, and one added in the console but never enrolled.
    await addNode('tyo-1', 'asia', 'Tokyo');
    await provisioningDb()
      .updateTable('nodes')
      .set({ last_seen_at: new Date(Date.now() - 120_000) })
      .where('id', '=', ids['tyo-1']!)
      .execute();
    await addNode('osl-1', 'europe', 'Oslo', [], ['198.51.100.126']);
    await provisioningDb()
      .updateTable('nodes')
      .set({ status: 'pending', public_key: null })
      .where('id', '=', ids['osl-1']!)
      .execute();
  }, 60_000);

  afterAll(async () => {
    await stack?.stop();
  });

  it('lists every region and its cities with live status to anyone, and nothing about the hosts', async () => {
    const answer = await list();
    expect(answer.statusCode).toBe(200);
    expect(answer.headers['cache-control']).toBe('public, max-age=5');
    expect(answer.data).toEqual({
      regions: [
        { id: 'north-america', label: 'North America', cities: [] },
        {
          id: 'europe',
          label: 'Europe',
          cities: [
            { city: 'Frankfurt', status: 'up', load: 'low', gaming: false },
            { city: 'Paris', status: 'up', load: 'low', gaming: false },
          ],
        },
        {
          id: 'asia',
          label: 'Asia',
          cities: [
            { city: 'Asia', status: 'up', load: 'low', gaming: false },
            { city: 'Singapore', status: 'up', load: 'low', gaming: true },
            { city: 'Tokyo', status: 'down', load: 'high', gaming: false },
          ],
        },
      ],
    });
    expect(answer.body).not.toMatch(/198\.51\.100|fra-1|sgp-1|legacy-1|51820/);
  });

  it("the connection check: a request from a server's egress address is protected and names that server, any other is not", async () => {
    const check = (address: string, headers: Record<string, string> = {}, client = new Client(stack.app, address)) =>
      client.call('GET', '/api/connection-check', undefined, headers);
    const frankfurt = {
      protected: true,
      server: { name: 'fra-1', city: 'Frankfurt', region: 'europe' },
      resolvers: ['10.64.0.1', 'fd7a:5157:7769::1'],
    };
    const through = await check('198.51.100.120');
    expect(through.statusCode).toBe(200);
    expect(through.headers['cache-control']).toBe('no-store');
    expect(through.data).toEqual(frankfurt);
    // The same address however the socket writes it: IPv6 in another notation, IPv4 mapped into IPv6.
    expect((await check('2001:db8:120::1')).data).toEqual(frankfurt);
    expect((await check('::ffff:198.51.100.120')).data).toEqual(frankfurt);
    expect((await check('198.51.100.123')).data).toMatchObject({
      protected: true,
      server: { name: 'sgp-1', city: 'Singapore', region: 'asia' },
    });
    // Signed in, the answer is the same (it names a server, never a device).
    const admin120 = Object.assign(new Client(stack.app, '198.51.100.120'), { accessToken: admin.accessToken });
    expect((await check('198.51.100.120', {}, admin120)).data).toEqual(frankfurt);

    const outside = { protected: false, server: null, resolvers: [] };
    expect((await check('203.0.113.10')).data).toEqual(outside);
    // A neighbour of an egress address, and the server's IPv6 /64 but not its address, are elsewhere.
    expect((await check('198.51.100.121')).data).toEqual(outside);
    expect((await check('2001:db8:120::2')).data).toEqual(outside);
    // A server added in the console and never enrolled carries nobody.
    expect((await check('198.51.100.126')).data).toEqual(outside);
    // TRUST_PROXY is off here: a client naming a server's address in X-Forwarded-For is not believed.
    expect((await check('203.0.113.10', { 'x-forwarded-for': '198.51.100.120' })).data).toEqual(outside);
  });

  it('a node saying an egress that is not an IP address is refused and keeps what it had', async () => {
    const { rpc } = await stack.connectNode('fra-1');
    await expect(
      rpc.request(
        registerNodeRpc,
        {
          region: 'europe',
          endpoint: '198.51.100.20:51820',
          public_key: generateKeyPair().publicKey,
          ip: '198.51.100.20',
          tags: [],
          city: 'Frankfurt',
          egress: ['vpn.example.com'],
        },
        undefined,
        { params: { node: 'fra-1' } },
      ),
    ).rejects.toMatchObject({ code: 'validation_failed' });
    const row = await provisioningDb()
      .selectFrom('nodes')
      .select('egress')
      .where('id', '=', ids['fra-1']!)
      .executeTakeFirstOrThrow();
    expect(row.egress).toEqual(['198.51.100.120', '2001:db8:120::1']);
  });

  it("a drained server's city reads down once no server there takes devices; the other city stays up", async () => {
    for (const name of ['par-1', 'fra-1']) {
      const drained = await admin.call('POST', `/api/admin/servers/${ids[name]}/drain`, { draining: true });
      expect(drained.statusCode).toBe(200);
    }
    const europe = await eventually(
      async () => {
        const regions = (await list()).data.regions as Array<{ id: string; cities: Array<{ status: string }> }>;
        const found = regions.find((r) => r.id === 'europe')!;
        return found.cities.some((c) => c.status === 'down') ? found : undefined;
      },
      10_000,
      250,
    );
    expect(europe.cities).toEqual([
      { city: 'Frankfurt', status: 'up', load: 'low', gaming: false },
      { city: 'Paris', status: 'down', load: 'high', gaming: false },
    ]);
  });
});
