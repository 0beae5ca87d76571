import type { BadgeTone } from '../../../ui';

/**
 * What the Servers page says about each server (issue #23): its status badges, the alert for
 * unreachable ones, the order of the cards, and times as "12 s ago" and uptime. Plain functions of
 * data, tested in web/test/server-rules.test.ts.
 */

export type ServerFacts = {
  name: string;
  status: 'pending' | 'active' | 'retired';
  reachable: boolean;
  draining: boolean;
};

export type ServerBadge = { label: string; tone: BadgeTone };

/**
 * Pending enrolment, Retired, or for a serving server Unreachable and/or Draining (both can hold:
 * a drained server that stopped reporting), else Active.
 */
export function serverBadges(server: ServerFacts): ServerBadge[] {
  if (server.status === 'pending') return [{ label: 'Pending enrolment', tone: 'neutral' }];
  if (server.status === 'retired') return [{ label: 'Retired', tone: 'neutral' }];
  const badges: ServerBadge[] = [];
  if (!server.reachable) badges.push({ label: 'Unreachable', tone: 'danger' });
  if (server.draining) badges.push({ label: 'Draining', tone: 'warning' });
  return badges.length > 0 ? badges : [{ label: 'Active', tone: 'success' }];
}

/** The serving servers that stopped reporting (pending and retired ones never report). */
export function unreachableServers<S extends ServerFacts>(servers: readonly S[]): S[] {
  return servers.filter((server) => server.status === 'active' && !server.reachable);
}

/** The alert at the top of the page, or null when every serving server reports. */
export function unreachableAlertText(servers: readonly ServerFacts[]): string | null {
  const names = unreachableServers(servers).map((server) => server.name);
  if (names.length === 0) return null;
  if (names.length === 1)
    return `1 server is unreachable: ${names[0]}. Its devices show “Server unreachable” until it reports again.`;
  return `${names.length} servers are unreachable: ${names.join(', ')}. Their devices show “Server unreachable” until they report again.`;
}

/** The cards in the order the page lists them: the API's order, retired servers apart and last. */
export function orderServers<S extends ServerFacts>(servers: readonly S[]): { current: S[]; retired: S[] } {
  return {
    current: servers.filter((server) => server.status !== 'retired'),
    retired: servers.filter((server) => server.status === 'retired'),
  };
}

/** A duration in its two largest units: '45 s', '12 min', '3 h 5 min', '2 d 4 h'. */
export function formatDuration(seconds: number): string {
  const s = Math.max(0, Math.floor(seconds));
  if (s < 60) return `${s} s`;
  const minutes = Math.floor(s / 60);
  if (minutes < 60) return `${minutes} min`;
  const hours = Math.floor(minutes / 60);
  if (hours < 24) return minutes % 60 === 0 ? `${hours} h` : `${hours} h ${minutes % 60} min`;
  const days = Math.floor(hours / 24);
  return hours % 24 === 0 ? `${days} d` : `${days} d ${hours % 24} h`;
}

function secondsSince(value: string | null | undefined, now: number): number | null {
  if (!value) return null;
  const at = Date.parse(value);
  if (Number.isNaN(at)) return null;
  return Math.max(0, (now - at) / 1000);
}

/** A server's last report: '12 s ago', '5 min ago', 'never'. */
export function formatAgo(value: string | null | undefined, now: number = Date.now()): string {
  const seconds = secondsSince(value, now);
  if (seconds === null) return 'never';
  return `${formatDuration(seconds)} ago`;
}

/** How long its agent has run: from `agent_started_at`; '—' when no agent has started yet. */
export function formatUptime(startedAt: string | null | undefined, now: number = Date.now()): string {
  const seconds = secondsSince(startedAt, now);
  return seconds === null ? '—' : formatDuration(seconds);
}

const loadWords = { low: 'low load', medium: 'medium load', high: 'high load' } as const;

/** '18 of 100 peers, low load': peers placed against capacity and how loaded that reads. */
export function capacityText(server: { peers_placed: number; capacity: number; load: keyof typeof loadWords }): string {
  const count = new Intl.NumberFormat('en-US');
  return `${count.format(server.peers_placed)} of ${count.format(server.capacity)} peers, ${loadWords[server.load]}`;
}

const resolverWords = {
  answering: 'Answering',
  starting: 'Starting',
  not_answering: 'Not answering',
  down: 'Down',
  off: 'Off',
} as const;

/**
 * Its own resolver (issue #25) as the agent's latest report said: 'Answering', 'Down, restarted 3
 * times'; '—' when its agent never said (an older agent, or none yet).
 */
export function resolverText(
  resolver: { state: keyof typeof resolverWords; restarts: number } | null | undefined,
): string {
  if (!resolver) return '—';
  const { state, restarts } = resolver;
  if (restarts === 0) return resolverWords[state];
  return `${resolverWords[state]}, restarted ${restarts} ${restarts === 1 ? 'time' : 'times'}`;
}
