import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generatePresharedKey, presharedKeyDigest } from '@qw/wireguard';
import { WgHost, type AgentPeerChange } from '../src/wg-host.ts';

const run = promisify(execFile);
const canRun =
  process.getuid?.() === 0 &&
  (await run('sh', ['-c', 'command -v wireguard-go && command -v wg']).then(
    () => true,
    () => false,
  ));
if (!canRun) console.warn('wg-host.test: no root or no wireguard-go/wg; skipped');

const randomKey = () => randomBytes(32).toString('base64');

/**
 * The agent's two ways to the interface, on one real wireguard-go in a namespace each: the same
 * changes (preshared keys set and taken away, a key replaced, removals) end in the same peers.
 */
describe.runIf(canRun)('WgHost on real wireguard-go: UAPI socket and wg alike', () => {
  const id = randomBytes(3).toString('hex');
  const ns = `qwh-${id}`;
  const ifaces = { uapi: `wgh${id}u`, wg: `wgh${id}w` };
  let emptyDir = '';

  beforeAll(async () => {
    await run('ip', ['netns', 'add', ns]);
    for (const iface of Object.values(ifaces)) await run('ip', ['netns', 'exec', ns, 'wireguard-go', iface]);
    emptyDir = await mkdtemp(path.join(tmpdir(), 'qw-nosock-'));
  });
  afterAll(async () => {
    for (const iface of Object.values(ifaces))
      await run('ip', ['netns', 'exec', ns, 'ip', 'link', 'delete', iface]).catch(() => undefined);
    await run('ip', ['netns', 'delete', ns]).catch(() => undefined);
    await rm(emptyDir, { recursive: true, force: true });
  });

  it('chooses the socket when there is one, wg otherwise or when told', async () => {
    expect(await new WgHost(ifaces.uapi, `ip netns exec ${ns}`).path()).toBe('uapi');
    expect(await new WgHost(ifaces.uapi, `ip netns exec ${ns}`, 'auto', emptyDir).path()).toBe('wg');
    expect(await new WgHost(ifaces.uapi, `ip netns exec ${ns}`, 'wg').path()).toBe('wg');
  });

  it('ends in the same peers whichever way the changes go', async () => {
    const hosts = {
      uapi: new WgHost(ifaces.uapi, `ip netns exec ${ns}`, 'uapi'),
      wg: new WgHost(ifaces.wg, `ip netns exec ${ns}`, 'wg'),
    };
    const [a, b, c, d] = [randomKey(), randomKey(), randomKey(), randomKey()];
    const psk = generatePresharedKey();
    const steps: AgentPeerChange[][] = [
      [
        { publicKey: a, allowedIps: ['10.64.0.2/32', 'fd7a:5157:7769::2/128'], presharedKey: psk },
        { publicKey: b, allowedIps: ['10.64.0.3/32'], presharedKey: null },
        { publicKey: c, allowedIps: ['10.64.0.4'] },
      ],
      // A rotation: b's key goes as d arrives with its address; a loses its preshared key; c leaves.
      [
        { publicKey: b, remove: true },
        { publicKey: d, allowedIps: ['10.64.0.3/32'], presharedKey: psk },
        { publicKey: a, allowedIps: ['10.64.0.2/32', 'fd7a:5157:7769::2/128'], presharedKey: null },
        { publicKey: c, remove: true },
      ],
    ];
    const seen: Record<string, unknown>[] = [];
    for (const step of steps) {
      const views: Record<string, unknown> = {};
      for (const [name, host] of Object.entries(hosts)) {
        await host.setPeers(step);
        const dump = await host.dump();
        views[name] = dump.peers
          .map((p) => ({ key: p.publicKey, ips: [...p.allowedIps].sort(), psk: p.presharedKeyDigest }))
          .sort((x, y) => x.key.localeCompare(y.key));
        expect(Object.fromEntries(await host.latestHandshakes())).toEqual(
          Object.fromEntries(dump.peers.map((p) => [p.publicKey, 0])),
        );
      }
      expect(views.uapi).toEqual(views.wg);
      seen.push(views);
    }
    expect(seen[0]!.uapi).toEqual(
      [
        { key: a, ips: ['10.64.0.2/32', 'fd7a:5157:7769::2/128'], psk: presharedKeyDigest(psk) },
        { key: b, ips: ['10.64.0.3/32'], psk: null },
        { key: c, ips: ['10.64.0.4/32'], psk: null },
      ].sort((x, y) => x.key.localeCompare(y.key)),
    );
    expect(seen[1]!.uapi).toEqual(
      [
        { key: a, ips: ['10.64.0.2/32', 'fd7a:5157:7769::2/128'], psk: null },
        { key: d, ips: ['10.64.0.3/32'], psk: presharedKeyDigest(psk) },
      ].sort((x, y) => x.key.localeCompare(y.key)),
    );
  });

  it('refuses a bad change before touching the interface', async () => {
    const host = new WgHost(ifaces.uapi, `ip netns exec ${ns}`, 'uapi');
    const peers = (await host.dump()).peers.length;
    await expect(
      host.setPeers([
        { publicKey: randomKey(), allowedIps: ['10.64.0.9/32'] },
        { publicKey: randomKey(), allowedIps: ['not an address'] },
      ]),
    ).rejects.toThrow(/allowed IP/);
    expect((await host.dump()).peers).toHaveLength(peers);
  });
});
