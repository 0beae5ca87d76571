/**
 * How the console writes its figures (spec §2 Servers, DESIGN.md): plain functions of data,
 * unit-tested in web/test/admin-console-figures.test.ts.
 */

/** Spec §9: server metrics older than 5 minutes are not shown. */
export const serverMetricsWindowSeconds = 300;

const count = new Intl.NumberFormat('en-US');

export function formatCount(value: number): string {
  return count.format(value);
}

/** Spec §2: CPU with one decimal ('37.5%'). */
export function formatCpu(cpu: number): string {
  return `${cpu.toFixed(1)}%`;
}

/** Spec §2: load1/load5/load15 with two decimals. */
export function formatLoad(load: number): string {
  return load.toFixed(2);
}

/** Spec §2: memory and disk as a rounded percent of the total; '—' without a total. */
export function formatUsedPercent(used: number, total: number): string {
  if (!(total > 0)) return '—';
  return `${Math.round((used / total) * 100)}%`;
}

/** Spec §2: 'ssh {user or root}@{ip}', with ' -p {port}' when the host has a port. */
export function sshCommand(server: { ip: string; ssh_user: string | null; ssh_port: number | null }): string {
  const user = server.ssh_user?.trim() || 'root';
  const port = server.ssh_port === null || server.ssh_port === undefined ? '' : ` -p ${server.ssh_port}`;
  return `ssh ${user}@${server.ip}${port}`;
}

/**
 * The metrics a card shows: the latest sample if it is at most 300 s old, else null ('No recent
 * metrics.'). The server already leaves older ones out; the page checks again because a card can
 * stay open longer than that.
 */
export function recentMetrics<M extends { ts: string }>(
  metrics: M | null | undefined,
  now: number = Date.now(),
  windowSeconds: number = serverMetricsWindowSeconds,
): M | null {
  if (!metrics) return null;
  const at = Date.parse(metrics.ts);
  if (Number.isNaN(at)) return null;
  return now - at <= windowSeconds * 1000 ? metrics : null;
}

const byteUnits = ['B', 'KB', 'MB', 'GB', 'TB', 'PB'] as const;

/** 1536 → '1.5 KB' (powers of 1024, one decimal above bytes). */
export function formatBytes(bytes: number): string {
  let value = bytes;
  let unit = 0;
  while (Math.abs(value) >= 1024 && unit < byteUnits.length - 1) {
    value /= 1024;
    unit += 1;
  }
  return unit === 0 ? `${value} B` : `${value.toFixed(1)} ${byteUnits[unit]}`;
}

/** The unit a chart's axis uses so that its largest value reads between 1 and 1024. */
export function byteScale(largest: number): { unit: string; divisor: number } {
  let unit = 0;
  let divisor = 1;
  while (largest / divisor >= 1024 && unit < byteUnits.length - 1) {
    divisor *= 1024;
    unit += 1;
  }
  return { unit: byteUnits[unit]!, divisor };
}

/** Latency in milliseconds, one decimal. */
export function formatLatency(ms: number): string {
  return `${ms.toFixed(1)} ms`;
}

/** Which page of how many, and the rows it shows: 'Rows 26–50 of 87'. */
export function pageSummary(page: { page: number; per_page: number; total: number }): {
  pages: number;
  from: number;
  to: number;
} {
  const perPage = Math.max(1, page.per_page);
  const pages = Math.max(1, Math.ceil(page.total / perPage));
  const from = page.total === 0 ? 0 : (page.page - 1) * perPage + 1;
  const to = Math.min(page.total, page.page * perPage);
  return { pages, from, to };
}

/** The audit's kinds in words. */
const auditKinds: Readonly<Record<string, string>> = {
  'admin_email.added': 'Admin email added',
  'admin_email.removed': 'Admin email removed',
  'organization.suspended': 'Organization suspended',
  'organization.reactivated': 'Organization reactivated',
  'device.activated': 'Device activated',
  'device.suspended': 'Device suspended',
  'device.keys_revoked': 'Device keys revoked',
  'node.drained': 'Server drained',
  'node.undrained': 'Server opened again',
  'node.added': 'Server added',
  'node.enrolment_issued': 'Enrolment token made',
  'node.retired': 'Server retired',
};

export function auditKindText(kind: string): string {
  return auditKinds[kind] ?? kind;
}

/** The table's sort (ascending/descending) as the contract's query (`sort`, `dir`). */
export function serverSort<K extends string>(
  sort: { key: string; direction: 'ascending' | 'descending' },
  keys: readonly K[],
): { sort: K; dir: 'asc' | 'desc' } | Record<string, never> {
  const key = keys.find((candidate) => candidate === sort.key);
  if (!key) return {};
  return { sort: key, dir: sort.direction === 'ascending' ? 'asc' : 'desc' };
}
