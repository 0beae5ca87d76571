/**
 * Spec §2 Servers: what one server card shows, as one pure function of the server and its metrics
 * (the web's card draws it; tested without a browser). No TypeBox here: plain data in, text out.
 */

/** Spec §9: server metrics count for 5 minutes. */
export const serverMetricsWindowSeconds = 300;
/** Spec §8. */
export const noRecentMetricsText = 'No recent metrics.';

export type ServerCardMetrics = {
  ts: string;
  cpu: number;
  mem_used: number;
  mem_total: number;
  disk_used: number;
  disk_total: number;
  load1: number;
  load5: number;
  load15: number;
};

export type ServerCardInput = {
  ip: string;
  ssh_user: string | null;
  ssh_port: number | null;
  metrics: ServerCardMetrics | null;
};

export type ServerCard = {
  /** 'ssh {user or root}@{ip}', with ' -p {port}' when the server has a port. */
  ssh: string;
  /** null: 'No recent metrics.' (none, or the latest is older than 300 s). */
  metrics: null | {
    /** One decimal, e.g. '12.5%'. */
    cpu: string;
    /** Two decimals each: load1, load5, load15. */
    load: [string, string, string];
    /** Rounded percent of used over total, e.g. '48%' ('—' when the total is unknown). */
    memory: string;
    disk: string;
  };
  message: string | null;
};

/** Spec §2: 'ssh {user or root}@{ip}', with -p {port} if a port exists. */
export function sshCommand(server: { ip: string; ssh_user: string | null; ssh_port: number | null }): string {
  const user = server.ssh_user?.trim() || 'root';
  const port = server.ssh_port ? ` -p ${server.ssh_port}` : '';
  return `ssh ${user}@${server.ip}${port}`;
}

function percent(used: number, total: number): string {
  if (!(total > 0)) return '—';
  return `${Math.round((used / total) * 100)}%`;
}

/** Metrics older than 300 s at `now` count as none. */
export function metricsAreRecent(metrics: { ts: string } | null, now: Date = new Date()): boolean {
  if (!metrics) return false;
  const age = (now.getTime() - new Date(metrics.ts).getTime()) / 1000;
  return Number.isFinite(age) && age <= serverMetricsWindowSeconds;
}

export function serverCard(server: ServerCardInput, now: Date = new Date()): ServerCard {
  const ssh = sshCommand(server);
  const m = server.metrics;
  if (!m || !metricsAreRecent(m, now)) return { ssh, metrics: null, message: noRecentMetricsText };
  return {
    ssh,
    metrics: {
      cpu: `${m.cpu.toFixed(1)}%`,
      load: [m.load1.toFixed(2), m.load5.toFixed(2), m.load15.toFixed(2)],
      memory: percent(m.mem_used, m.mem_total),
      disk: percent(m.disk_used, m.disk_total),
    },
    message: null,
  };
}
