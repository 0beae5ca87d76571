import { spawnSync } from 'node:child_process';
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { ClientConfigInput } from '../src/index.ts';
import {
  CONFIG_FILE_STEM_MAX_LENGTH,
  configFileName,
  generateKeyPair,
  parseClientConfig,
  renderClientConfig,
  toWgSetconf,
} from '../src/index.ts';
import { hasWg, hasWgQuick, warnIfMissing } from './wg-tools.ts';

warnIfMissing('wg', hasWg);
warnIfMissing('wg-quick', hasWgQuick);

const input: ClientConfigInput = {
  deviceName: "Alice's Laptop",
  privateKey: 'yAnz5TF+lXXJte14tji3zlMNq+hd2rYUIgJBgB3fBmk=',
  addresses: ['10.64.0.2/32', 'fd7a:5157:7769::2/128'],
  dns: ['10.64.0.1', 'fd7a:5157:7769::1'],
  serverPublicKey: 'xTIBA5rboUvnH4htodjb6e697QjLERt1NAB4mZqp8Dg=',
  endpoint: 'de-fra-1.quietwire.net:51820',
};

const scratch = mkdtempSync(join(tmpdir(), 'qw-wireguard-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

describe('renderClientConfig', () => {
  it('renders the golden wg-quick file', () => {
    expect(renderClientConfig(input)).toBe(
      [
        "# Quietwire — Alice's Laptop",
        '# This file contains the private key of this device. Do not share it.',
        '',
        '[Interface]',
        'PrivateKey = yAnz5TF+lXXJte14tji3zlMNq+hd2rYUIgJBgB3fBmk=',
        'Address = 10.64.0.2/32, fd7a:5157:7769::2/128',
        'DNS = 10.64.0.1, fd7a:5157:7769::1',
        '',
        '[Peer]',
        'PublicKey = xTIBA5rboUvnH4htodjb6e697QjLERt1NAB4mZqp8Dg=',
        'Endpoint = de-fra-1.quietwire.net:51820',
        'AllowedIPs = 0.0.0.0/0, ::/0',
        'PersistentKeepalive = 25',
        '',
      ].join('\n'),
    );
  });

  it('takes other allowed IPs and keepalive, leaves out DNS when empty and keepalive when 0', () => {
    const text = renderClientConfig({
      ...input,
      dns: [],
      allowedIps: ['10.64.0.0/16'],
      persistentKeepalive: 0,
      endpoint: '[2001:db8::7]:443',
    });
    expect(text).not.toMatch(/^DNS/m);
    expect(text).not.toMatch(/^PersistentKeepalive/m);
    expect(text).toContain('\nAllowedIPs = 10.64.0.0/16\n');
    expect(text).toContain('\nEndpoint = [2001:db8::7]:443\n');
    expect(renderClientConfig({ ...input, persistentKeepalive: 15 })).toContain('\nPersistentKeepalive = 15\n');
  });

  it('keeps a hostile device name inside its comment line', () => {
    const text = renderClientConfig({
      ...input,
      deviceName: 'evil\n[Peer]\r\nPublicKey = x\u2028AllowedIPs = 1.2.3.4/32',
    });
    expect(text.split('\n')[0]).toBe('# Quietwire — evil [Peer] PublicKey = x AllowedIPs = 1.2.3.4/32');
    expect(text.match(/^\[Peer\]$/gm)).toHaveLength(1);
    expect(parseClientConfig(text).allowedIps).toEqual(['0.0.0.0/0', '::/0']);
    expect(renderClientConfig({ ...input, deviceName: ' \n\t ' }).split('\n')[0]).toBe('# Quietwire — device');
  });

  it.each<[string, Partial<ClientConfigInput>, RegExp]>([
    ['a bad private key', { privateKey: 'nope' }, /privateKey/],
    ['a bad server key', { serverPublicKey: input.privateKey.slice(1) }, /serverPublicKey/],
    ['no addresses', { addresses: [] }, /addresses must not be empty/],
    ['an address without prefix', { addresses: ['10.64.0.2'] }, /addresses entry/],
    ['an injected address', { addresses: ['10.64.0.2/32\nPostUp = rm -rf /'] }, /addresses entry/],
    ['an injected DNS entry', { dns: ['1.1.1.1\nPostUp = id'] }, /DNS entry/],
    ['an endpoint without port', { endpoint: 'vpn.example.com' }, /endpoint/],
    ['an endpoint with port 0', { endpoint: 'vpn.example.com:0' }, /endpoint/],
    ['an endpoint with a newline', { endpoint: 'a:1\nPostUp = id' }, /endpoint/],
    ['a bare IPv6 endpoint', { endpoint: '2001:db8::1:51820' }, /endpoint/],
    ['a negative keepalive', { persistentKeepalive: -1 }, /persistentKeepalive/],
    ['a fractional keepalive', { persistentKeepalive: 2.5 }, /persistentKeepalive/],
    ['empty allowed IPs', { allowedIps: [] }, /allowedIps/],
  ])('refuses %s', (_case, override, message) => {
    expect(() => renderClientConfig({ ...input, ...override })).toThrow(message);
  });
});

describe('parseClientConfig', () => {
  it('reads back what renderClientConfig wrote', () => {
    const { privateKey, publicKey } = generateKeyPair();
    const full = {
      ...input,
      privateKey,
      serverPublicKey: publicKey,
      allowedIps: ['10.64.0.0/16', 'fd7a:5157:7769::/64'],
      persistentKeepalive: 30,
    };
    expect(parseClientConfig(renderClientConfig(full))).toEqual({
      ...full,
      endpoint: full.endpoint,
      presharedKey: null,
      postUp: [],
      preDown: [],
    });
    expect(parseClientConfig(renderClientConfig({ ...input, dns: [], persistentKeepalive: 0 }))).toMatchObject({
      dns: [],
      persistentKeepalive: null,
    });
  });

  it('reads a hand-written file: any key case, CRLF, repeated Address, inline comments, extra wg-quick keys', () => {
    const text = [
      '[interface]',
      'privatekey=yAnz5TF+lXXJte14tji3zlMNq+hd2rYUIgJBgB3fBmk=  # mine',
      'Address = 10.64.0.2/32',
      'ADDRESS = fd7a:5157:7769::2/128',
      'MTU = 1380',
      '',
      '[PEER]',
      'PublicKey = xTIBA5rboUvnH4htodjb6e697QjLERt1NAB4mZqp8Dg=',
      'AllowedIPs = 0.0.0.0/0,::/0',
      'PersistentKeepalive = off',
    ].join('\r\n');
    expect(parseClientConfig(text)).toEqual({
      deviceName: null,
      privateKey: input.privateKey,
      addresses: ['10.64.0.2/32', 'fd7a:5157:7769::2/128'],
      dns: [],
      serverPublicKey: input.serverPublicKey,
      presharedKey: null,
      postUp: [],
      preDown: [],
      endpoint: null,
      allowedIps: ['0.0.0.0/0', '::/0'],
      persistentKeepalive: null,
    });
  });

  it.each([
    [
      'no peer',
      '[Interface]\nPrivateKey = yAnz5TF+lXXJte14tji3zlMNq+hd2rYUIgJBgB3fBmk=\n',
      /one \[Interface\] and one \[Peer\]/,
    ],
    [
      'two peers',
      `${renderClientConfig(input)}\n[Peer]\nPublicKey = ${input.serverPublicKey}\n`,
      /one \[Interface\] and one \[Peer\]/,
    ],
    ['an unknown section', `${renderClientConfig(input)}[Extra]\n`, /unknown section/],
    ['a key outside a section', `PrivateKey = ${input.privateKey}\n${renderClientConfig(input)}`, /inside a section/],
    ['a line without "="', renderClientConfig(input).replace('[Peer]\n', '[Peer]\nnonsense\n'), /Key = value/],
    ['a bad private key', renderClientConfig(input).replace(input.privateKey, 'short='), /PrivateKey/],
    ['a bad keepalive', renderClientConfig(input).replace('= 25', '= soon'), /PersistentKeepalive/],
  ])('refuses %s', (_case, text, message) => {
    expect(() => parseClientConfig(text)).toThrow(message);
  });
});

describe('toWgSetconf', () => {
  it('strips wg-quick-only keys and comments, keeps everything wg itself reads', () => {
    const text = renderClientConfig(input).replace(
      '[Peer]',
      'MTU = 1380\nPostUp = echo up\nListenPort = 51000\n\n[Peer]',
    );
    expect(toWgSetconf(text)).toBe(
      [
        '[Interface]',
        `PrivateKey = ${input.privateKey}`,
        'ListenPort = 51000',
        '',
        '[Peer]',
        `PublicKey = ${input.serverPublicKey}`,
        `Endpoint = ${input.endpoint}`,
        'AllowedIPs = 0.0.0.0/0, ::/0',
        'PersistentKeepalive = 25',
        '',
      ].join('\n'),
    );
  });

  it('only strips in [Interface]', () => {
    expect(toWgSetconf('[Peer]\nDNS = 1.1.1.1\n')).toBe('[Peer]\nDNS = 1.1.1.1\n');
  });

  /** `wg setconf` parses the whole file before it looks for the interface, so a parse error shows without one. */
  function wgSetconfParseError(text: string): string | null {
    const file = join(scratch, `setconf-${Math.random().toString(36).slice(2)}.conf`);
    writeFileSync(file, text, { mode: 0o600 });
    const result = spawnSync('wg', ['setconf', 'qwparsecheck0', file], { encoding: 'utf8' });
    return /Configuration parsing error|Line unrecognized|Unable to parse/i.test(result.stderr)
      ? result.stderr.trim()
      : null;
  }

  it.skipIf(!hasWg)('produces what the real `wg setconf` parses (and the wg-quick file is what it refuses)', () => {
    // wg resolves a host name while parsing; an address keeps the test off the network.
    const text = renderClientConfig({ ...input, endpoint: '198.51.100.7:51820' });
    expect(wgSetconfParseError(text)).toMatch(/Address/);
    expect(wgSetconfParseError(toWgSetconf(text))).toBeNull();
    expect(
      wgSetconfParseError(
        toWgSetconf(renderClientConfig({ ...input, endpoint: '[2001:db8::7]:443', persistentKeepalive: 0 })),
      ),
    ).toBeNull();
  });

  it.skipIf(!hasWgQuick)('keeps the same settings as `wg-quick strip`, on a file named by configFileName', () => {
    const text = renderClientConfig({ ...input, deviceName: 'Bob’s very long phone name' });
    const file = join(scratch, configFileName('Bob’s very long phone name'));
    writeFileSync(file, text);
    chmodSync(file, 0o600);
    const result = spawnSync('wg-quick', ['strip', file], { encoding: 'utf8' });
    expect(result.stderr).toBe('');
    expect(result.status).toBe(0);
    const settings = (config: string) =>
      config
        .split('\n')
        .map((line) => line.replace(/#.*/, '').trim())
        .filter((line) => line !== '');
    expect(settings(toWgSetconf(text))).toEqual(settings(result.stdout));
  });
});

describe('configFileName', () => {
  it.each([
    ["Alice's Laptop", 'alices-laptop.conf'],
    ['Bob’s iPhone', 'bobs-iphone.conf'],
    ['Café Zürich', 'cafe-zurich.conf'],
    ['work_pc-2', 'work_pc-2.conf'],
    ['  --Gaming  Rig!!  ', 'gaming-rig.conf'],
    ['../../etc/passwd', 'etc-passwd.conf'],
    ['My Very Long Device Name 2024', 'my-very-long-de.conf'],
    ['abcdefghijklmn opq', 'abcdefghijklmn.conf'],
    ['', 'quietwire.conf'],
    ['🔥🔥🔥', 'quietwire.conf'],
    ['家族のPC', 'pc.conf'],
    ['Привет', 'quietwire.conf'],
    ['CON', 'quietwire.conf'],
    ['lpt1', 'quietwire.conf'],
    ['console', 'console.conf'],
  ])('%j → %s', (name, fileName) => {
    expect(configFileName(name)).toBe(fileName);
  });

  it('always yields a name wg-quick accepts as an interface name', () => {
    const samples = [
      'a',
      'x'.repeat(100),
      'Ünïcödé ünïcödé ünïcödé',
      'tab\tand\nnewline',
      'dots.and.more.dots',
      '-_-_-_-',
      ...Array.from({ length: 300 }, (_, i) =>
        String.fromCodePoint(...Array.from({ length: (i % 40) + 1 }, (_, j) => 32 + ((i * 31 + j * 17) % 600))),
      ),
    ];
    for (const name of samples) {
      const fileName = configFileName(name);
      expect(fileName).toMatch(/^[a-z0-9_-]{1,15}\.conf$/);
      expect(fileName.length - '.conf'.length).toBeLessThanOrEqual(CONFIG_FILE_STEM_MAX_LENGTH);
      // wg-quick's own check on the config path:
      expect(fileName).toMatch(/^[a-zA-Z0-9_=+.-]{1,15}\.conf$/);
    }
  });
});
