import { sql, type Kysely } from 'kysely';
import {
  AppError,
  adminDeviceNamesRpc,
  adminTestUserIdsRpc,
  connectedWindowSeconds,
  serverMetricsWindowSeconds,
  type Caller,
  isUuid,
} from '@qw/contracts';
import type { RpcClient } from '@qw/platform/bus';
import type { TelemetryDatabase } from '../database.ts';
import { foldHistory, historyWindow, maxStepSeconds } from './server-history-rules.ts';

type Db = Kysely<TelemetryDatabase>;

/**
 * Connected now, as `isDeviceConnected` decides it (contracts' devices.ts), judged by the database's
 * clock: a handshake younger than the window, of a device that is not off (provisioning's
 * suspensions, kept in `device_activity`). A device without keys has no row here (its keys'
 * revocation forgets it), so every row has a key.
 */
const connectedNow = sql<boolean>`(latest_handshake is not null and latest_handshake > now() - make_interval(secs => ${connectedWindowSeconds})
  and not exists (select 1 from device_activity off where off.device_id = device_latest_telemetry.device_id and not off.is_active))`;

/**
 * Issue #26, "Hide test accounts": the people identity marks as test accounts (asked with the
 * operator's own assertion; the mark is asked for, never copied here), and the condition that a
 * device (a column holding its id) is not one of theirs, found through its keys. None asked: every
 * device passes.
 */
export async function testUserIds(rpc: RpcClient, caller: Caller): Promise<string[]> {
  return (await rpc.request(adminTestUserIdsRpc, {}, caller)).user_ids;
}
export function notTestDevice(column: string, testIds: readonly string[]) {
  if (testIds.length === 0) return sql<boolean>`true`;
  return sql<boolean>`not exists (select 1 from device_keys k where k.device_id = ${sql.ref(column)} and k.user_id = any(${[...testIds]}::uuid[]))`;
}

/**
 * Spec §9: the last 1440 minutes in hourly buckets: the current hour and the 23 before it, oldest
 * first; an hour without traffic is 0. With `testIds`, less the test accounts' devices' hours: each
 * device's hours of the last day are kept anyway (its Devices page's "last 24 h": the ended hours
 * in `device_traffic_hours`, the hour under way in its latest row), folded from the same samples
 * as the totals, so the difference is exactly the other devices' traffic. A test device removed
 * (or its keys revoked) takes its hours with it, so its traffic stays in the totals.
 */
export async function trafficLast24Hours(db: Db, testIds: readonly string[] = []) {
  const test =
    testIds.length === 0
      ? sql`select null::timestamptz as hour, 0::bigint as rx_bytes, 0::bigint as tx_bytes where false`
      : sql`select d.hour, sum(d.rx_bytes) as rx_bytes, sum(d.tx_bytes) as tx_bytes
              from (select device_id, hour, rx_bytes, tx_bytes from device_traffic_hours
                    union all
                    select device_id, hour, hour_rx_bytes, hour_tx_bytes from device_latest_telemetry
                     where hour is not null) d
             where d.hour >= date_trunc('hour', now()) - interval '23 hours'
               and d.device_id in (select k.device_id from device_keys k where k.user_id = any(${[...testIds]}::uuid[]))
             group by d.hour`;
  const rows = await sql<{ hour: Date; rx_bytes: string; tx_bytes: string }>`
    select h as hour, greatest(coalesce(t.rx_bytes, 0) - coalesce(x.rx_bytes, 0), 0) as rx_bytes,
           greatest(coalesce(t.tx_bytes, 0) - coalesce(x.tx_bytes, 0), 0) as tx_bytes
      from generate_series(date_trunc('hour', now()) - interval '23 hours', date_trunc('hour', now()), interval '1 hour') h
      left join telemetry t on t.ts = h
      left join (${test}) x on x.hour = h
     order by h`.execute(db);
  return rows.rows.map((row) => ({
    hour: new Date(row.hour).toISOString(),
    rx_bytes: Number(row.rx_bytes),
    tx_bytes: Number(row.tx_bytes),
  }));
}

export async function connectedCount(db: Db, testIds: readonly string[] = []): Promise<number> {
  const row = await db
    .selectFrom('device_latest_telemetry')
    .select((eb) => eb.fn.countAll<string>().as('n'))
    .where(connectedNow)
    .where(notTestDevice('device_latest_telemetry.device_id', testIds))
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

/**
 * Per node: devices connected now (not counting those of `excludeUserIds`'s people), and its newest
 * host metrics if they are within 300 s.
 */
export async function nodeStats(db: Db, nodeIds: string[], excludeUserIds: readonly string[] = []) {
  if (nodeIds.length === 0) return { nodes: [] };
  const [connected, metrics] = await Promise.all([
    db
      .selectFrom('device_latest_telemetry')
      .select(['node_id', (eb) => eb.fn.countAll<string>().as('n')])
      .where('node_id', 'in', nodeIds)
      .where(connectedNow)
      .where(notTestDevice('device_latest_telemetry.device_id', excludeUserIds))
      .groupBy('node_id')
      .execute(),
    sql<{
      host_id: string;
      ts: Date;
      cpu: number;
      mem_used: string;
      mem_total: string;
      disk_used: string;
      disk_total: string;
      load1: number;
      load5: number;
      load15: number;
    }>`select distinct on (host_id) * from vps_metrics
        where host_id = any(${nodeIds}::uuid[]) and ts > now() - make_interval(secs => ${serverMetricsWindowSeconds})
        order by host_id, ts desc`.execute(db),
  ]);
  const connectedOf = new Map(connected.map((r) => [r.node_id, Number(r.n)]));
  const metricsOf = new Map(metrics.rows.map((m) => [m.host_id, m]));
  return {
    nodes: nodeIds.map((nodeId) => {
      const m = metricsOf.get(nodeId);
      return {
        node_id: nodeId,
        connected: connectedOf.get(nodeId) ?? 0,
        metrics: m
          ? {
              ts: new Date(m.ts).toISOString(),
              cpu: m.cpu,
              mem_used: Number(m.mem_used),
              mem_total: Number(m.mem_total),
              disk_used: Number(m.disk_used),
              disk_total: Number(m.disk_total),
              load1: m.load1,
              load5: m.load5,
              load15: m.load15,
            }
          : null,
      };
    }),
  };
}

/**
 * Per node: devices, connected now, bytes, and the median latency of its connected devices where
 * measured; ordered by the node's name. Counted in one pass (a hash aggregate); the medians only
 * over the connected rows, which the handshake index finds, so no sort of every row is needed.
 */
async function nodeSummaries(db: Db, node: string | undefined, testIds: readonly string[]) {
  const notTest = notTestDevice('device_latest_telemetry.device_id', testIds);
  const [counts, medians, names] = await Promise.all([
    sql<{ node_id: string; devices: string; connected: string; rx_bytes: string; tx_bytes: string }>`
      select node_id, count(*) as devices, count(*) filter (where ${connectedNow}) as connected,
             coalesce(sum(rx_bytes), 0) as rx_bytes, coalesce(sum(tx_bytes), 0) as tx_bytes
        from device_latest_telemetry where ${notTest} ${node ? sql`and node_id = ${node}` : sql``}
       group by node_id`.execute(db),
    sql<{ node_id: string; latency_ms: number | null }>`
      select node_id, percentile_cont(0.5) within group (order by latency_ms) as latency_ms
        from device_latest_telemetry
       where ${connectedNow} and latency_ms is not null and ${notTest} ${node ? sql`and node_id = ${node}` : sql``}
       group by node_id`.execute(db),
    db.selectFrom('nodes').select(['id', 'name']).execute(),
  ]);
  const medianOf = new Map(medians.rows.map((row) => [row.node_id, row.latency_ms]));
  const nameOf = new Map(names.map((row) => [row.id, row.name]));
  return counts.rows
    .map((row) => ({ ...row, name: nameOf.get(row.node_id) ?? null, latency_ms: medianOf.get(row.node_id) ?? null }))
    .sort((a, b) =>
      a.name === b.name
        ? a.node_id.localeCompare(b.node_id)
        : a.name === null
          ? 1
          : b.name === null
            ? -1
            : a.name < b.name
              ? -1
              : 1,
    );
}

export type LatestQuery = {
  node?: string | undefined;
  /** Issue #26: the test accounts' devices left out of the rows, the total and the node summaries. */
  exclude_test?: boolean | undefined;
  connected?: boolean | undefined;
  sort?: 'ts' | 'rx_bytes' | 'tx_bytes' | 'latency_ms' | undefined;
  dir?: 'asc' | 'desc' | undefined;
  page?: number | undefined;
  per_page?: number | undefined;
};

/**
 * Spec §2 Telemetry: the latest row per device, filtered by node and connected, sorted and paged,
 * named with provisioning's device names (asked with the admin's own assertion), and a summary per
 * node (devices, connected, bytes, the median latency of its connected devices where measured).
 */
export async function latestPage(db: Db, rpc: RpcClient, caller: Caller, input: LatestQuery) {
  const page = input.page ?? 1;
  const perPage = input.per_page ?? 25;
  const sort = input.sort ?? 'ts';
  const dir = input.dir ?? 'desc';
  const testIds = input.exclude_test ? await testUserIds(rpc, caller) : [];
  let filtered = db.selectFrom('device_latest_telemetry');
  if (testIds.length > 0) filtered = filtered.where(notTestDevice('device_latest_telemetry.device_id', testIds));
  if (input.node) filtered = filtered.where('node_id', '=', input.node.toLowerCase());
  if (input.connected === true) filtered = filtered.where(connectedNow);
  if (input.connected === false) filtered = filtered.where(sql<boolean>`not ${connectedNow}`);
  const [rows, total, summaries] = await Promise.all([
    filtered
      .selectAll()
      .select(connectedNow.as('is_connected'))
      // Only latency may be missing (last either way). A top-N sort of the filtered rows: the columns
      // change at every sample, so they have no index (migration latest_rows_hot_updates).
      .orderBy(sql.ref(sort), (ob) => {
        const ordered = dir === 'asc' ? ob.asc() : ob.desc();
        return sort === 'latency_ms' ? ordered.nullsLast() : ordered;
      })
      .orderBy('device_id', dir)
      .limit(perPage)
      .offset((page - 1) * perPage)
      .execute(),
    filtered.select((eb) => eb.fn.countAll<string>().as('n')).executeTakeFirstOrThrow(),
    nodeSummaries(db, input.node?.toLowerCase(), testIds),
  ]);
  const names =
    rows.length === 0
      ? new Map<string, string>()
      : new Map(
          (await rpc.request(adminDeviceNamesRpc, { device_ids: rows.map((r) => r.device_id) }, caller)).devices.map(
            (d) => [d.id, d.name],
          ),
        );
  const nodeNames = new Map(summaries.map((s) => [s.node_id, s.name ?? '']));
  return {
    rows: rows.map((row) => ({
      device_id: row.device_id,
      device_name: names.get(row.device_id) ?? '',
      node: { id: row.node_id, name: nodeNames.get(row.node_id) ?? '' },
      ts: new Date(row.ts).toISOString(),
      rx_packets: row.rx_packets === null ? null : Number(row.rx_packets),
      tx_packets: row.tx_packets === null ? null : Number(row.tx_packets),
      rx_bytes: Number(row.rx_bytes),
      tx_bytes: Number(row.tx_bytes),
      latency_ms: row.latency_ms,
      endpoint: row.endpoint,
      is_connected: Boolean(row.is_connected),
    })),
    total: Number(total.n),
    page,
    per_page: perPage,
    nodes: summaries.map((s) => ({
      node: { id: s.node_id, name: s.name ?? '' },
      devices: Number(s.devices),
      connected: Number(s.connected),
      rx_bytes: Number(s.rx_bytes),
      tx_bytes: Number(s.tx_bytes),
      latency_ms: s.latency_ms === null ? null : Number(s.latency_ms),
    })),
  };
}

/**
 * One server's last 24 hours (issue #26): its host samples from one index range scan (host_id,
 * ts), folded into 5-minute buckets by `foldHistory`. The sample just before the window is read
 * too, so the first bucket's traffic has a step to start from.
 */
export async function serverHistory(db: Db, nodeIdText: string, now: Date = new Date()) {
  const nodeId = nodeIdText.toLowerCase();
  const node = isUuid(nodeId)
    ? await db.selectFrom('nodes').select('id').where('id', '=', nodeId).executeTakeFirst()
    : undefined;
  if (!node) throw new AppError('not_found', 'Server not found.');
  const window = historyWindow(now);
  const rows = await db
    .selectFrom('vps_metrics')
    .select(['ts', 'cpu', 'load1', 'mem_used', 'mem_total', 'net_rx_bytes', 'net_tx_bytes', 'peers'])
    .where('host_id', '=', nodeId)
    .where('ts', '>=', new Date(window.from.getTime() - maxStepSeconds * 1000))
    .where('ts', '<', window.to)
    .orderBy('ts')
    .execute();
  const { buckets, reportedShare } = foldHistory(
    rows.map((row) => ({
      ts: new Date(row.ts),
      cpu: row.cpu,
      load1: row.load1,
      mem_used: Number(row.mem_used),
      mem_total: Number(row.mem_total),
      net_rx_bytes: row.net_rx_bytes === null ? null : Number(row.net_rx_bytes),
      net_tx_bytes: row.net_tx_bytes === null ? null : Number(row.net_tx_bytes),
      peers: row.peers,
    })),
    window,
  );
  return {
    node_id: nodeId,
    from: window.from.toISOString(),
    to: window.to.toISOString(),
    bucket_seconds: window.bucketSeconds,
    buckets,
    reported_share: reportedShare,
  };
}
