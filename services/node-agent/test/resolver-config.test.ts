import { execFile, spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { blockingCategories } from '@qw/contracts';
import { policyResolverAddresses } from '@qw/wireguard';
import {
  blockedDomains,
  normalDomain,
  parseDomainList,
  readBlocklists,
  shippedBlocklistDir,
  type Blocklists,
} from '../src/resolver/blocklists.ts';
import { dnsQuery, parseDnsResponse } from '../src/resolver/dns-message.ts';
import { NodeResolver } from '../src/resolver/node-resolver.ts';
import {
  blocklistZones,
  policyInterfaceAddresses,
  resolverListen,
  ulaPrefixOf,
  unboundConfig,
  upstreamAddress,
  type UnboundSettings,
} from '../src/resolver/unbound-config.ts';
import { createLogger } from '@qw/platform';
import { freePort } from '@qw/testkit';

const run = promisify(execFile);
const ula = 'fd7a:5157:7769::/48';
const lists = (partial: Partial<Blocklists>): Blocklists => ({
  ads: [],
  trackers: [],
  malware: [],
  adult: [],
  gambling: [],
  ...partial,
});
const settings = (partial: Partial<UnboundSettings> = {}): UnboundSettings => ({
  directory: '/var/lib/qw-resolver',
  listen: resolverListen({ nodeIpv4: '10.64.0.1', nodeIpv6: 'fd7a:5157:7769::1' }, ula),
  port: 53,
  upstream: [],
  username: 'unbound',
  trustAnchorFile: null,
  blocklistFile: '/var/lib/qw-resolver/blocklists.conf',
  ...partial,
});
const lines = (text: string) => text.split('\n').map((l) => l.trim());

describe('blocklist files', () => {
  it('keeps domains only: lower case, no trailing dot, hosts-file lines by their name, comments and junk skipped', () => {
    expect(normalDomain(' Ads.Example.COM. ')).toBe('ads.example.com');
    for (const junk of ['com', '1.2.3.4', '*.example.com', 'http://x.com/', 'a..b', '-a.com', 'a.com"', 'a.1'])
      expect(normalDomain(junk)).toBeNull();
    expect(normalDomain(`${'a'.repeat(64)}.com`)).toBeNull();
    expect(
      parseDomainList(
        '# header\nb.example\n0.0.0.0 a.example # trailing\n127.0.0.1 localhost\nB.example\n\n  c.example  \n*.bad\n',
      ),
    ).toEqual(['a.example', 'b.example', 'c.example']);
  });

  it('gives each blocked name one zone tagged with every category that lists it', () => {
    expect(
      blockedDomains(lists({ ads: ['x.example', 'both.example'], malware: ['both.example'], gambling: ['a.example'] })),
    ).toEqual([
      { domain: 'a.example', categories: ['gambling'] },
      { domain: 'both.example', categories: ['ads', 'malware'] },
      { domain: 'x.example', categories: ['ads'] },
    ]);
    expect(lines(blocklistZones(lists({ ads: ['both.example'], trackers: ['both.example'] })))).toEqual([
      'server:',
      'local-zone: "both.example." always_nxdomain',
      'local-zone-tag: "both.example." "ads trackers"',
      '',
    ]);
  });

  it('ships a valid, non-empty list for every category, each named in the licence README', async () => {
    const shipped = await readBlocklists(shippedBlocklistDir);
    const readme = readFileSync(path.join(shippedBlocklistDir, 'README.md'), 'utf8');
    for (const category of blockingCategories) {
      expect(shipped[category].length, category).toBeGreaterThan(10);
      expect(shipped[category].every((d) => normalDomain(d) === d)).toBe(true);
      expect(readme).toContain(`| ${category} |`);
      // The file is exactly what its parse gives back (the update script wrote it so).
      const text = readFileSync(path.join(shippedBlocklistDir, `${category}.txt`), 'utf8');
      expect(text.split('\n').filter((l) => l && !l.startsWith('#'))).toEqual(shipped[category]);
    }
    expect(shipped.ads).toContain('doubleclick.net');
  });
});

describe('unbound.conf for a node', () => {
  it('listens on the node address and the 31 policy addresses, v4 and v6, and nowhere else', () => {
    const listen = resolverListen({ nodeIpv4: '10.64.0.1', nodeIpv6: 'fd7a:5157:7769::1' }, ula);
    expect(listen).toHaveLength(64);
    expect(listen.slice(0, 2)).toEqual([
      { address: '10.64.0.1', mask: 0 },
      { address: 'fd7a:5157:7769::1', mask: 0 },
    ]);
    expect(listen).toContainEqual({ address: '100.64.0.31', mask: 31 });
    expect(listen).toContainEqual({ address: policyResolverAddresses(5, ula).ipv6, mask: 5 });
    expect(resolverListen({ nodeIpv4: '10.65.0.1', nodeIpv6: null }, ula).every((l) => !l.address.includes(':'))).toBe(
      true,
    );
    const conf = lines(unboundConfig(settings()));
    const interfaces = conf.filter((l) => l.startsWith('interface:')).map((l) => l.slice('interface: '.length));
    expect(interfaces).toEqual(listen.map((l) => l.address));
    expect(conf).toContain('interface-automatic: no');
    expect(conf.some((l) => /^interface: (0\.0\.0\.0|::)$/.test(l))).toBe(false);
    // An access-control line would override the interface tags (unbound.conf(5)): there is none.
    expect(conf.some((l) => l.startsWith('access-control'))).toBe(false);
    expect(conf).toContain('so-reuseport: no');
    expect(conf).toContain('do-ip6: yes');
  });

  it('tags each policy address with the categories of its mask; the node address has none', () => {
    const conf = lines(unboundConfig(settings()));
    expect(conf).toContain('define-tag: "ads trackers malware adult gambling"');
    expect(conf).toContain('interface-tag: 100.64.0.1 "ads"');
    expect(conf).toContain('interface-tag: 100.64.0.5 "ads malware"');
    expect(conf).toContain('interface-tag: 100.64.0.31 "ads trackers malware adult gambling"');
    expect(conf).toContain(`interface-tag: ${policyResolverAddresses(24, ula).ipv6} "adult gambling"`);
    expect(conf.some((l) => l.startsWith('interface-tag: 10.64.0.1 '))).toBe(false);
    expect(conf.filter((l) => l.startsWith('interface-action:')).every((l) => l.endsWith(' allow'))).toBe(true);
  });

  it('logs no queries: verbosity 0, no query, reply, local-action or servfail lines, no statistics, no remote control', () => {
    const conf = lines(unboundConfig(settings({ upstream: ['192.0.2.53'] })));
    for (const line of [
      'verbosity: 0',
      'log-queries: no',
      'log-replies: no',
      'log-local-actions: no',
      'log-servfail: no',
      'val-log-level: 0',
      'use-syslog: no',
      'logfile: ""',
      'statistics-interval: 0',
      'extended-statistics: no',
      'control-enable: no',
    ])
      expect(conf).toContain(line);
    expect(conf.some((l) => /^(log-[a-z-]+|verbosity|val-log-level): (yes|[1-9])/.test(l))).toBe(false);
    expect(conf.some((l) => /dnstap|dump|cachedb/.test(l))).toBe(false);
  });

  it('forwards to NODE_RESOLVER_UPSTREAM when set, and otherwise recurses (validating with a trust anchor)', () => {
    const forwarding = lines(unboundConfig(settings({ upstream: ['192.0.2.53', '2001:db8::53@5353'] })));
    expect(forwarding).toEqual(
      expect.arrayContaining([
        'forward-zone:',
        'name: "."',
        'forward-addr: 192.0.2.53',
        'forward-addr: 2001:db8::53@5353',
      ]),
    );
    expect(forwarding).toContain('module-config: "iterator"');
    const recursing = lines(unboundConfig(settings({ trustAnchorFile: '/usr/share/dns/root.key' })));
    expect(recursing.some((l) => l.startsWith('forward-'))).toBe(false);
    expect(recursing).toContain('module-config: "validator iterator"');
    expect(recursing).toContain('trust-anchor-file: "/usr/share/dns/root.key"');
    expect(upstreamAddress('resolver.example')).toBeNull();
    expect(upstreamAddress('192.0.2.1@0')).toBeNull();
    expect(upstreamAddress('192.0.2.1@99999')).toBeNull();
    expect(() => unboundConfig(settings({ upstream: ['192.0.2.1\nserver:'] }))).toThrow();
    expect(() =>
      unboundConfig(settings({ listen: [{ address: '10.64.0.1\ninterface: 0.0.0.0', mask: 0 }] })),
    ).toThrow();
    expect(() => unboundConfig(settings({ listen: [{ address: '10.64.0.1', mask: 32 }] }))).toThrow(RangeError);
    expect(() => unboundConfig(settings({ directory: '/tmp/"x' }))).toThrow();
  });

  it('gives the interface the policy addresses as /32 and /128, and reads the ULA /48 from the node /64', () => {
    expect(ulaPrefixOf('fd7a:5157:7769:3::/64')).toBe('fd7a:5157:7769::/48');
    expect(() => ulaPrefixOf('10.64.0.0/16')).toThrow();
    const addresses = [policyResolverAddresses(1, ula), policyResolverAddresses(2, ula)];
    expect(policyInterfaceAddresses(addresses, true)).toEqual([
      '100.64.0.1/32',
      '100.64.0.2/32',
      'fd7a:5157:7769:ffff::1/128',
      'fd7a:5157:7769:ffff::2/128',
    ]);
    expect(policyInterfaceAddresses(addresses, false)).toEqual(['100.64.0.1/32', '100.64.0.2/32']);
  });

  it('reads DNS answers: rcode, A and AAAA addresses; refuses what is not a response', () => {
    const query = dnsQuery('localhost', 1, 0x1234);
    expect(query.readUInt16BE(0)).toBe(0x1234);
    expect(() => parseDnsResponse(query)).toThrow();
    const answer = Buffer.concat([
      Buffer.from([0x12, 0x34, 0x81, 0x80, 0, 1, 0, 2, 0, 0, 0, 0]),
      query.subarray(12),
      Buffer.from([0xc0, 12, 0, 1, 0, 1, 0, 0, 0, 60, 0, 4, 127, 0, 0, 1]),
      Buffer.from([0xc0, 12, 0, 28, 0, 1, 0, 0, 0, 60, 0, 16, ...Array(15).fill(0), 1]),
    ]);
    expect(parseDnsResponse(answer)).toEqual({ id: 0x1234, rcode: 0, addresses: ['127.0.0.1', '::1'] });
    const nx = Buffer.from(answer.subarray(0, 12 + query.length - 12));
    nx.writeUInt16BE(0x8183, 2);
    nx.writeUInt16BE(0, 6);
    expect(parseDnsResponse(nx).rcode).toBe(3);
  });
});

const unbound = '/usr/sbin/unbound';
describe.skipIf(!existsSync(unbound))('the generated config in a real unbound', () => {
  let dir: string | undefined;
  afterAll(async () => {
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('passes unbound-checkconf with the shipped blocklists, every policy address and an upstream', async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'qw-resolver-conf-'));
    const blocklistFile = path.join(dir, 'blocklists.conf');
    await writeFile(blocklistFile, blocklistZones(await readBlocklists(shippedBlocklistDir)));
    const file = path.join(dir, 'unbound.conf');
    await writeFile(file, unboundConfig(settings({ directory: dir, blocklistFile, upstream: ['127.0.0.53'] })));
    const { stdout } = await run('unbound-checkconf', [file]);
    expect(stdout).toContain('no errors');
  });

  it('runs under the supervisor on loopback, answers its own probe in this process, and ends an unbound a dead agent left', async () => {
    dir ??= await mkdtemp(path.join(tmpdir(), 'qw-resolver-conf-'));
    const port = await freePort();
    const resolverOf = () =>
      new NodeResolver(
        {
          binary: unbound,
          directory: path.join(dir!, 'run'),
          blocklistDir: shippedBlocklistDir,
          upstream: ['127.0.0.1@9'],
          prefix: [],
          port,
          username: '',
        },
        createLogger({ service: 'node-agent', level: 'silent' }),
      );
    const answering = async (resolver: NodeResolver) => {
      let health = await resolver.health();
      for (let i = 0; i < 50 && health.state !== 'answering'; i++) {
        await new Promise((resolve) => setTimeout(resolve, 100));
        health = await resolver.health();
      }
      return health;
    };
    const first = resolverOf();
    try {
      await first.start([{ address: '127.0.0.1', mask: 0 }]);
      expect(await answering(first)).toEqual({ state: 'answering', restarts: 0 });
    } finally {
      await first.stop();
    }
    expect((await first.health()).state).toBe('down');

    // An agent killed outright leaves its unbound running on the port, named in the pid file.
    const leftover = spawn(unbound, ['-d', '-p', '-c', first.configFile], { stdio: 'ignore' });
    const leftoverExit = new Promise((resolve) => leftover.on('exit', resolve));
    await writeFile(path.join(dir, 'run', 'unbound.pid'), `${leftover.pid}\n`);
    const second = resolverOf();
    try {
      await second.start([{ address: '127.0.0.1', mask: 0 }]);
      await leftoverExit;
      expect(await answering(second)).toEqual({ state: 'answering', restarts: 0 });
      expect(second.pid).not.toBe(leftover.pid);
    } finally {
      await second.stop();
      leftover.kill('SIGKILL');
    }
  });

  it('turned off (NODE_RESOLVER=off), leaves the pid file of another agent sharing its folder alone', async () => {
    const folder = await mkdtemp(path.join(tmpdir(), 'qw-resolver-off-'));
    try {
      await writeFile(path.join(folder, 'unbound.pid'), '4242\n');
      const off = new NodeResolver(
        { binary: 'off', directory: folder, blocklistDir: shippedBlocklistDir, upstream: [], prefix: [] },
        createLogger({ service: 'node-agent', level: 'silent' }),
      );
      await off.start([]);
      await off.stop();
      expect(readFileSync(path.join(folder, 'unbound.pid'), 'utf8')).toBe('4242\n');
    } finally {
      await rm(folder, { recursive: true, force: true });
    }
  });
});
