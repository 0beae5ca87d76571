import { describe, expect, it } from 'vitest';
import { noRecentMetricsText, serverCard, sshCommand } from '../src/servers.ts';

const now = new Date('2026-05-01T12:00:00.000Z');
const metrics = (ageSeconds: number) => ({
  ts: new Date(now.getTime() - ageSeconds * 1000).toISOString(),
  cpu: 7.25,
  mem_used: 1_500,
  mem_total: 4_000,
  disk_used: 2_345,
  disk_total: 10_000,
  load1: 0.125,
  load5: 2,
  load15: 0.005,
});

describe('server card (spec §2 Servers)', () => {
  it('shows CPU with 1 decimal, loads with 2, memory and disk as rounded percents', () => {
    expect(serverCard({ ip: '192.0.2.1', ssh_user: 'ops', ssh_port: null, metrics: metrics(10) }, now)).toEqual({
      ssh: 'ssh ops@192.0.2.1',
      metrics: { cpu: '7.3%', load: ['0.13', '2.00', '0.01'], memory: '38%', disk: '23%' },
      message: null,
    });
    const exact = { ...metrics(0), cpu: 100, mem_used: 4_000, disk_used: 0 };
    expect(serverCard({ ip: '192.0.2.1', ssh_user: null, ssh_port: null, metrics: exact }, now).metrics).toEqual({
      cpu: '100.0%',
      load: ['0.13', '2.00', '0.01'],
      memory: '100%',
      disk: '0%',
    });
  });

  it("says 'No recent metrics.' without metrics or when the latest is older than 300 s", () => {
    const server = { ip: '192.0.2.1', ssh_user: null, ssh_port: null };
    expect(serverCard({ ...server, metrics: null }, now)).toEqual({
      ssh: 'ssh root@192.0.2.1',
      metrics: null,
      message: noRecentMetricsText,
    });
    expect(noRecentMetricsText).toBe('No recent metrics.');
    expect(serverCard({ ...server, metrics: metrics(300) }, now).metrics).not.toBeNull();
    expect(serverCard({ ...server, metrics: metrics(301) }, now).message).toBe('No recent metrics.');
  });

  it("writes 'ssh {user or root}@{ip}' and adds -p {port} only when there is one", () => {
    expect(sshCommand({ ip: '203.0.113.9', ssh_user: 'deploy', ssh_port: 2222 })).toBe(
      'ssh deploy@203.0.113.9 -p 2222',
    );
    expect(sshCommand({ ip: '203.0.113.9', ssh_user: null, ssh_port: 22 })).toBe('ssh root@203.0.113.9 -p 22');
    expect(sshCommand({ ip: '203.0.113.9', ssh_user: '  ', ssh_port: null })).toBe('ssh root@203.0.113.9');
  });

  it('shows an unknown total as a dash rather than a made-up percent', () => {
    const card = serverCard(
      { ip: '192.0.2.1', ssh_user: null, ssh_port: null, metrics: { ...metrics(1), mem_total: 0 } },
      now,
    );
    expect(card.metrics?.memory).toBe('—');
  });
});
