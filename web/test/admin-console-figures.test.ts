import { describe, expect, it } from 'vitest';
import {
  auditKindText,
  byteScale,
  formatBytes,
  formatCpu,
  formatLoad,
  formatUsedPercent,
  pageSummary,
  recentMetrics,
  serverSort,
  sshCommand,
} from '../src/features/admin/format';

describe('server cards (spec §2 Servers)', () => {
  it('writes CPU with one decimal and loads with two', () => {
    expect(formatCpu(37.46)).toBe('37.5%');
    expect(formatCpu(5)).toBe('5.0%');
    expect(formatCpu(0.04)).toBe('0.0%');
    expect(formatLoad(0.5)).toBe('0.50');
    expect(formatLoad(1.234)).toBe('1.23');
    expect(formatLoad(12)).toBe('12.00');
  });

  it('writes memory and disk as a rounded percent, and a dash without a total', () => {
    expect(formatUsedPercent(3, 8)).toBe('38%');
    expect(formatUsedPercent(1, 3)).toBe('33%');
    expect(formatUsedPercent(41, 80)).toBe('51%');
    expect(formatUsedPercent(0, 80)).toBe('0%');
    expect(formatUsedPercent(80, 80)).toBe('100%');
    expect(formatUsedPercent(5, 0)).toBe('—');
  });

  it("builds 'ssh {user or root}@{ip}' with -p {port} only when there is one", () => {
    expect(sshCommand({ ip: '203.0.113.10', ssh_user: null, ssh_port: null })).toBe('ssh root@203.0.113.10');
    expect(sshCommand({ ip: '203.0.113.10', ssh_user: '  ', ssh_port: null })).toBe('ssh root@203.0.113.10');
    expect(sshCommand({ ip: '198.51.100.7', ssh_user: 'ops', ssh_port: 2222 })).toBe('ssh ops@198.51.100.7 -p 2222');
    expect(sshCommand({ ip: '192.0.2.44', ssh_user: null, ssh_port: 22 })).toBe('ssh root@192.0.2.44 -p 22');
  });

  it('keeps metrics of the last 300 seconds only (spec §9)', () => {
    const now = Date.parse('2026-11-23T12:00:00Z');
    const at = (seconds: number) => ({ ts: new Date(now - seconds * 1000).toISOString() });
    expect(recentMetrics(at(0), now)).not.toBeNull();
    expect(recentMetrics(at(300), now)).not.toBeNull();
    expect(recentMetrics(at(301), now)).toBeNull();
    expect(recentMetrics(null, now)).toBeNull();
    expect(recentMetrics({ ts: 'not a time' }, now)).toBeNull();
  });
});

describe('console figures', () => {
  it('writes bytes in powers of 1024 and picks an axis unit for the busiest hour', () => {
    expect(formatBytes(0)).toBe('0 B');
    expect(formatBytes(1023)).toBe('1023 B');
    expect(formatBytes(1536)).toBe('1.5 KB');
    expect(formatBytes(50 * 1024 ** 2)).toBe('50.0 MB');
    expect(formatBytes(3 * 1024 ** 3)).toBe('3.0 GB');
    expect(byteScale(0)).toEqual({ unit: 'B', divisor: 1 });
    expect(byteScale(120 * 1024 ** 2)).toEqual({ unit: 'MB', divisor: 1024 ** 2 });
  });

  it('says which rows a page shows', () => {
    expect(pageSummary({ page: 1, per_page: 25, total: 60 })).toEqual({ pages: 3, from: 1, to: 25 });
    expect(pageSummary({ page: 3, per_page: 25, total: 60 })).toEqual({ pages: 3, from: 51, to: 60 });
    expect(pageSummary({ page: 1, per_page: 25, total: 0 })).toEqual({ pages: 1, from: 0, to: 0 });
  });

  it("turns the table's sort into the contract's sort and dir, ignoring columns the server cannot sort", () => {
    const keys = ['name', 'created_at'] as const;
    expect(serverSort({ key: 'name', direction: 'ascending' }, keys)).toEqual({ sort: 'name', dir: 'asc' });
    expect(serverSort({ key: 'created_at', direction: 'descending' }, keys)).toEqual({
      sort: 'created_at',
      dir: 'desc',
    });
    expect(serverSort({ key: 'owner', direction: 'ascending' }, keys)).toEqual({});
  });

  it('names the audit kinds and keeps an unknown one as sent', () => {
    expect(auditKindText('device.keys_revoked')).toBe('Device keys revoked');
    expect(auditKindText('node.drained')).toBe('Server drained');
    expect(auditKindText('something.new')).toBe('something.new');
  });
});
