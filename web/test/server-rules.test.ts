import { defaultNodeCapacity } from '@qw/contracts';
import { describe, expect, it } from 'vitest';
import {
  checkAddServer,
  emptyAddServerDraft,
  fieldOfRefusal,
  isEndpoint,
  parseTags,
} from '../src/features/admin/utils/add-server-rules';
import {
  capacityText,
  formatAgo,
  formatDuration,
  formatUptime,
  orderServers,
  resolverText,
  serverBadges,
  unreachableAlertText,
  unreachableServers,
} from '../src/features/admin/utils/server-rules';

const server = (name: string, facts: Partial<Parameters<typeof serverBadges>[0]> = {}) => ({
  name,
  status: 'active' as const,
  reachable: true,
  draining: false,
  ...facts,
});

describe('Servers page: status badges (issue #23)', () => {
  it('names each lifecycle state; a serving server is Active unless unreachable or draining, which can hold together', () => {
    const labels = (facts: Partial<Parameters<typeof serverBadges>[0]>) =>
      serverBadges(server('x', facts)).map((badge) => `${badge.label}:${badge.tone}`);
    expect(labels({})).toEqual(['Active:success']);
    expect(labels({ reachable: false })).toEqual(['Unreachable:danger']);
    expect(labels({ draining: true })).toEqual(['Draining:warning']);
    expect(labels({ reachable: false, draining: true })).toEqual(['Unreachable:danger', 'Draining:warning']);
    expect(labels({ status: 'pending', reachable: false })).toEqual(['Pending enrolment:neutral']);
    expect(labels({ status: 'retired', reachable: false, draining: true })).toEqual(['Retired:neutral']);
  });
});

describe('Servers page: the unreachable alert', () => {
  it('counts only serving servers that stopped reporting, and names them', () => {
    const fleet = [
      server('fra-1'),
      server('fra-2', { reachable: false }),
      server('new-1', { status: 'pending', reachable: false }),
      server('old-1', { status: 'retired', reachable: false }),
      server('sgp-1', { reachable: false, draining: true }),
    ];
    expect(unreachableServers(fleet).map((s) => s.name)).toEqual(['fra-2', 'sgp-1']);
    expect(unreachableAlertText(fleet)).toBe(
      '2 servers are unreachable: fra-2, sgp-1. Their devices show “Server unreachable” until they report again.',
    );
    expect(unreachableAlertText([server('fra-2', { reachable: false })])).toBe(
      '1 server is unreachable: fra-2. Its devices show “Server unreachable” until it reports again.',
    );
    expect(unreachableAlertText([server('fra-1'), server('new-1', { status: 'pending', reachable: false })])).toBe(
      null,
    );
  });

  it('lists retired servers apart and last, keeping the order of the rest', () => {
    const fleet = [
      server('a', { status: 'retired' }),
      server('b'),
      server('c', { status: 'pending' }),
      server('d', { status: 'retired' }),
    ];
    const { current, retired } = orderServers(fleet);
    expect(current.map((s) => s.name)).toEqual(['b', 'c']);
    expect(retired.map((s) => s.name)).toEqual(['a', 'd']);
  });
});

describe('Servers page: times and capacity', () => {
  it('writes durations in their two largest units', () => {
    expect(formatDuration(0)).toBe('0 s');
    expect(formatDuration(12.9)).toBe('12 s');
    expect(formatDuration(59)).toBe('59 s');
    expect(formatDuration(60)).toBe('1 min');
    expect(formatDuration(3599)).toBe('59 min');
    expect(formatDuration(3600)).toBe('1 h');
    expect(formatDuration(3600 + 5 * 60 + 30)).toBe('1 h 5 min');
    expect(formatDuration(86_400)).toBe('1 d');
    expect(formatDuration(2 * 86_400 + 4 * 3600 + 59)).toBe('2 d 4 h');
    expect(formatDuration(-5)).toBe('0 s');
  });

  it("says a last report as '12 s ago', never for none; uptime from the agent's start", () => {
    const now = Date.parse('2026-11-25T04:00:00Z');
    expect(formatAgo('2026-11-25T03:59:48Z', now)).toBe('12 s ago');
    expect(formatAgo('2026-11-25T03:00:00Z', now)).toBe('1 h ago');
    expect(formatAgo(null, now)).toBe('never');
    expect(formatAgo('not a date', now)).toBe('never');
    // A clock a little ahead of ours is not "in the future".
    expect(formatAgo('2026-11-25T04:00:02Z', now)).toBe('0 s ago');
    expect(formatUptime('2026-11-24T03:00:00Z', now)).toBe('1 d 1 h');
    expect(formatUptime(null, now)).toBe('—');
  });

  it('writes peers placed against capacity with the load level', () => {
    expect(capacityText({ peers_placed: 18, capacity: 100, load: 'low' })).toBe('18 of 100 peers, low load');
    expect(capacityText({ peers_placed: 1200, capacity: 1500, load: 'high' })).toBe('1,200 of 1,500 peers, high load');
  });
});

describe('Add server: the form (issue #23)', () => {
  const valid = {
    ...emptyAddServerDraft,
    name: 'fra-2',
    region: 'europe',
    city: ' Frankfurt ',
    endpoint: '203.0.113.20:51820',
    tags: 'Gaming, ,gaming, low-latency',
  };

  it('turns a valid form into the body: trimmed, tags parsed, capacity defaulted, empty SSH fields left out', () => {
    expect(emptyAddServerDraft.capacity).toBe(String(defaultNodeCapacity));
    expect(checkAddServer(valid)).toEqual({
      body: {
        name: 'fra-2',
        region: 'europe',
        city: 'Frankfurt',
        endpoint: '203.0.113.20:51820',
        tags: ['gaming', 'low-latency'],
        capacity: defaultNodeCapacity,
      },
      errors: {},
    });
    expect(checkAddServer({ ...valid, ssh_user: 'ops', ssh_port: '2222' }).body).toMatchObject({
      ssh_user: 'ops',
      ssh_port: 2222,
    });
  });

  it('says what is wrong with each field, and sends nothing', () => {
    const { body, errors } = checkAddServer({
      ...emptyAddServerDraft,
      name: 'Fra_2',
      endpoint: '203.0.113.20',
      tags: 'ok, not ok',
      capacity: '0',
      ssh_user: 'two words',
      ssh_port: '70000',
    });
    expect(body).toBeNull();
    expect(Object.keys(errors).sort()).toEqual(
      ['capacity', 'city', 'endpoint', 'name', 'region', 'ssh_port', 'ssh_user', 'tags'].sort(),
    );
    expect(errors.tags).toContain('“not ok”');
    expect(checkAddServer({ ...valid, name: '' }).errors).toEqual({ name: 'Enter a name.' });
    expect(checkAddServer({ ...valid, name: '-fra' }).errors.name).toMatch(/lowercase letters/);
    expect(checkAddServer({ ...valid, name: 'a'.repeat(41) }).errors.name).toBe('Use at most 40 characters.');
    expect(checkAddServer({ ...valid, capacity: '1.5' }).errors.capacity).toBeDefined();
    expect(checkAddServer({ ...valid, capacity: '1000001' }).errors.capacity).toBeDefined();
    expect(checkAddServer({ ...valid, region: 'mars' }).errors).toEqual({ region: 'Choose a region.' });
  });

  it('takes host:port endpoints: a name, an IPv4 address or a bracketed IPv6 address, and a port 1–65535', () => {
    for (const ok of ['203.0.113.20:51820', 'vpn.example.com:443', '[2001:db8::1]:51820', 'a:1', 'host:65535'])
      expect(isEndpoint(ok), ok).toBe(true);
    for (const bad of [
      '203.0.113.20',
      '2001:db8::1:51820',
      'host:0',
      'host:65536',
      'host:port',
      ':51820',
      'bad host:1',
      '[nothex]:1',
      'http://host:1',
    ])
      expect(isEndpoint(bad), bad).toBe(false);
  });

  it('parses tags: trimmed, lower case, no empties or repeats', () => {
    expect(parseTags('')).toEqual([]);
    expect(parseTags(' gaming ,GAMING,, eu ')).toEqual(['gaming', 'eu']);
  });

  it("places a server's refusal by the field it names, from its details or its schema message", () => {
    expect(fieldOfRefusal({ message: 'A server is already called fra-2.', details: { field: 'name' } })).toBe('name');
    expect(fieldOfRefusal({ message: 'body.endpoint must match pattern' })).toBe('endpoint');
    expect(fieldOfRefusal({ message: 'body.ssh_port must be <= 65535.' })).toBe('ssh_port');
    expect(fieldOfRefusal({ message: 'body.secret is not allowed', details: { field: 'secret' } })).toBe(null);
    expect(fieldOfRefusal({ message: 'Something else went wrong.' })).toBe(null);
  });
});

describe("Servers page: the node's own resolver (issue #25)", () => {
  it('says how the resolver answered at the last report, with its restarts; a dash when the agent never said', () => {
    expect(resolverText({ state: 'answering', restarts: 0 })).toBe('Answering');
    expect(resolverText({ state: 'not_answering', restarts: 1 })).toBe('Not answering, restarted 1 time');
    expect(resolverText({ state: 'down', restarts: 3 })).toBe('Down, restarted 3 times');
    expect(resolverText({ state: 'starting', restarts: 0 })).toBe('Starting');
    expect(resolverText({ state: 'off', restarts: 0 })).toBe('Off');
    expect(resolverText(null)).toBe('—');
  });
});
