import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import {
  addKillSwitch,
  generateKeyPair,
  generatePresharedKey,
  hasKillSwitch,
  isWireGuardKey,
  killSwitchLines,
  parseClientConfig,
  parseKillSwitchRule,
  parseWgDump,
  planReconcile,
  presharedKeyDigest,
  renderClientConfig,
  toWgSetconf,
  wgSetPeersArgs,
  type ClientConfigInput,
} from '../src/index.ts';
import { hasWg, hasWgQuick } from './wg-tools.ts';

const scratch = mkdtempSync(join(tmpdir(), 'qw-psk-lib-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

const psk = 'FpCyhws9cxwWoV4xELtfJvjJN+zQVRPISllRWgeopVE=';
const input: ClientConfigInput = {
  deviceName: 'Laptop',
  privateKey: 'yAnz5TF+lXXJte14tji3zlMNq+hd2rYUIgJBgB3fBmk=',
  addresses: ['10.64.0.2/32', 'fd7a:5157:7769::2/128'],
  dns: ['10.64.0.1'],
  serverPublicKey: 'xTIBA5rboUvnH4htodjb6e697QjLERt1NAB4mZqp8Dg=',
  presharedKey: psk,
  endpoint: 'de-fra-1.quietwire.net:51820',
};

describe('preshared keys', () => {
  it('are 32 random bytes in base64, as wg genpsk makes them, and differ each time', () => {
    const keys = new Set(Array.from({ length: 200 }, () => generatePresharedKey()));
    expect(keys.size).toBe(200);
    for (const key of keys) {
      expect(isWireGuardKey(key)).toBe(true);
      expect(Buffer.from(key, 'base64')).toHaveLength(32);
    }
  });

  it('go in the [Peer] section and read back; none leaves the line out', () => {
    const text = renderClientConfig(input);
    const peer = text.slice(text.indexOf('[Peer]'));
    expect(peer).toContain(`\nPresharedKey = ${psk}\n`);
    expect(parseClientConfig(text).presharedKey).toBe(psk);
    const without = renderClientConfig({ ...input, presharedKey: null });
    expect(without).not.toMatch(/PresharedKey/);
    expect(parseClientConfig(without).presharedKey).toBeNull();
    expect(toWgSetconf(text)).toContain(`PresharedKey = ${psk}`);
  });

  it('refuses one that is no key, in rendering and reading', () => {
    expect(() => renderClientConfig({ ...input, presharedKey: 'not-a-key' })).toThrow(/presharedKey/);
    const text = renderClientConfig(input).replace(psk, 'AAAA');
    expect(() => parseClientConfig(text)).toThrow(/PresharedKey/);
  });

  it.skipIf(!hasWg)('the config with its key is what the real `wg setconf` accepts', () => {
    const file = join(scratch, 'psk.conf');
    writeFileSync(file, toWgSetconf(renderClientConfig(input)), { mode: 0o600 });
    // A dry parse: `wg setconf` on a missing interface fails only after reading the file.
    const result = spawnSync('wg', ['setconf', 'qwpskcheck0', file], { encoding: 'utf8' });
    expect(result.stderr).not.toMatch(/Line unrecognized|Key is not the correct length/);
  });

  it('a wg set names the key file, never the key', () => {
    const args = wgSetPeersArgs('wg0', [
      { publicKey: input.serverPublicKey, allowedIps: ['10.64.0.2/32'], presharedKeyFile: '/tmp/qw-psk-ab/0' },
      { publicKey: generateKeyPair().publicKey, allowedIps: ['10.64.0.3/32'], presharedKeyFile: '/dev/null' },
    ]);
    expect(args.slice(0, 8)).toEqual([
      'set',
      'wg0',
      'peer',
      input.serverPublicKey,
      'preshared-key',
      '/tmp/qw-psk-ab/0',
      'allowed-ips',
      '10.64.0.2/32',
    ]);
    expect(args).toContain('/dev/null');
    expect(args.join(' ')).not.toContain(psk);
    for (const bad of ['relative/file', '/tmp/../etc/shadow', '/tmp/a b', '-x'])
      expect(() =>
        wgSetPeersArgs('wg0', [{ publicKey: input.serverPublicKey, allowedIps: [], presharedKeyFile: bad }]),
      ).toThrow(/absolute path/);
  });

  it('the dump keeps only a digest of a peer preshared key', () => {
    const peerKey = generateKeyPair().publicKey;
    const dump = parseWgDump(
      [
        `(none)\t${input.serverPublicKey}\t51820\toff`,
        `${peerKey}\t${psk}\t(none)\t10.64.0.2/32\t0\t0\t0\toff`,
        `${input.serverPublicKey}\t(none)\t(none)\t10.64.0.3/32\t0\t0\t0\toff`,
      ].join('\n'),
    );
    expect(dump.peers[0]).toMatchObject({ hasPresharedKey: true, presharedKeyDigest: presharedKeyDigest(psk) });
    expect(JSON.stringify(dump)).not.toContain(psk);
    expect(dump.peers[1]).toMatchObject({ hasPresharedKey: false, presharedKeyDigest: null });
  });

  it('reconcile fixes a peer whose preshared key is missing, wrong or one too many, and leaves a right one', () => {
    const [a, b, c, d] = Array.from({ length: 4 }, () => generateKeyPair().publicKey) as [
      string,
      string,
      string,
      string,
    ];
    const other = generatePresharedKey();
    const actual = [
      { publicKey: a, allowedIps: ['10.64.0.2/32'], presharedKeyDigest: presharedKeyDigest(psk) },
      { publicKey: b, allowedIps: ['10.64.0.3/32'], presharedKeyDigest: null },
      { publicKey: c, allowedIps: ['10.64.0.4/32'], presharedKeyDigest: presharedKeyDigest(other) },
      { publicKey: d, allowedIps: ['10.64.0.5/32'], presharedKeyDigest: presharedKeyDigest(psk) },
    ];
    const plan = planReconcile(
      [
        { publicKey: a, allowedIps: ['10.64.0.2/32'], presharedKey: psk },
        { publicKey: b, allowedIps: ['10.64.0.3/32'], presharedKey: psk },
        { publicKey: c, allowedIps: ['10.64.0.4/32'], presharedKey: psk },
        { publicKey: d, allowedIps: ['10.64.0.5/32'], presharedKey: null },
      ],
      actual,
    );
    expect(plan.add).toEqual([]);
    expect(plan.remove).toEqual([]);
    expect(plan.update.map((peer) => peer.publicKey)).toEqual([b, c, d]);
  });
});

describe('the Linux kill switch', () => {
  it('inserts the reject rule for IPv4 and IPv6 when up and deletes exactly those when down', () => {
    const parsed = parseClientConfig(renderClientConfig({ ...input, killSwitch: true }));
    expect(parsed.postUp.map(parseKillSwitchRule)).toEqual([
      { family: 'iptables', action: 'insert' },
      { family: 'ip6tables', action: 'insert' },
    ]);
    expect(parsed.preDown.map(parseKillSwitchRule)).toEqual([
      { family: 'iptables', action: 'delete' },
      { family: 'ip6tables', action: 'delete' },
    ]);
    // Each deletion is its insertion with -D for -I, so down leaves no rule behind.
    expect(parsed.preDown).toEqual(parsed.postUp.map((command) => command.replace(' -I OUTPUT ', ' -D OUTPUT ')));
    for (const command of parsed.postUp) {
      expect(command).toContain('! -o %i');
      expect(command).toContain('! --mark $(wg show %i fwmark)');
      expect(command).toContain('! --dst-type LOCAL');
      expect(command).toMatch(/-j REJECT$/);
    }
    expect(hasKillSwitch(parsed)).toBe(true);
    expect(hasKillSwitch(parseClientConfig(renderClientConfig(input)))).toBe(false);
  });

  it('is added to a downloaded file before its [Peer], once, and the file reads back the same otherwise', () => {
    const plain = renderClientConfig(input);
    const guarded = addKillSwitch(plain);
    expect(addKillSwitch(guarded)).toBe(guarded);
    expect(guarded).toBe(renderClientConfig({ ...input, killSwitch: true }));
    const { postUp, preDown, ...rest } = parseClientConfig(guarded);
    const { postUp: none, preDown: none2, ...plainRest } = parseClientConfig(plain);
    expect(rest).toEqual(plainRest);
    expect([none, none2]).toEqual([[], []]);
    expect(guarded.indexOf('PostUp')).toBeLessThan(guarded.indexOf('[Peer]'));
    expect(killSwitchLines()).toHaveLength(4);
  });

  it('refuses anything else as its rule', () => {
    for (const command of [
      'iptables -I OUTPUT -j ACCEPT',
      'iptables -I INPUT ! -o %i -j REJECT',
      'nft flush ruleset',
      `${killSwitchLines()[0]!.slice('PostUp = '.length)}; rm -rf /`,
    ])
      expect(parseKillSwitchRule(command)).toBeNull();
  });

  it.skipIf(!hasWgQuick)('wg-quick strip keeps the rest of the file as wg reads it', () => {
    const file = join(scratch, 'guarded.conf');
    writeFileSync(file, renderClientConfig({ ...input, killSwitch: true }), { mode: 0o600 });
    const result = spawnSync('wg-quick', ['strip', file], { encoding: 'utf8' });
    expect(result.status).toBe(0);
    expect(result.stdout).not.toMatch(/PostUp|PreDown/);
    expect(result.stdout).toContain(`PresharedKey = ${psk}`);
  });
});
