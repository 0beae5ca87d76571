/** `make bench`: runs every benchmark and prints its figures (no pass/fail: targets are read by people). */
import { runBusPipelineBench } from './bus-pipeline.bench.ts';
import { runDevicesBench } from './devices.bench.ts';
import { runAnalyticsBench } from './analytics.bench.ts';
import { runAdminBench } from './admin.bench.ts';
import { runReplicasBench } from './replicas.bench.ts';
import { runBusIdentitiesBench } from './bus-identities.bench.ts';
import { runNatsFailoverBench } from './nats-failover.bench.ts';

const only = process.argv[2];

if (!only || only === 'bus') {
  console.log('bus pipeline: outbox → JetStream → idempotent consumer (real Postgres, real NATS)');
  const result = await runBusPipelineBench({
    rate: Number(process.env.BENCH_RATE ?? 1000),
    seconds: Number(process.env.BENCH_SECONDS ?? 10),
    producers: Number(process.env.BENCH_PRODUCERS ?? 16),
    backlog: Number(process.env.BENCH_BACKLOG ?? 50_000),
  });
  const { paced, sustained, drain, producers, duplicates } = result;
  console.log(
    `  paced ${paced.targetRate}/s (achieved ${paced.achievedRate}/s, ${paced.events} events, after 2 s of warm-up): commit→effect p50 ${paced.p50Ms.toFixed(1)} ms, p99 ${paced.p99Ms.toFixed(1)} ms, max ${paced.maxMs.toFixed(1)} ms   [target p99 < 20 ms]`,
  );
  console.log(
    `    of which commit→stored in JetStream p50 ${paced.relayP50Ms.toFixed(1)} ms, p99 ${paced.relayP99Ms.toFixed(1)} ms; stored→effect p50 ${paced.consumerP50Ms.toFixed(1)} ms, p99 ${paced.consumerP99Ms.toFixed(1)} ms`,
  );
  for (const run of sustained) {
    console.log(
      `  sustained, ${producers} producers, ${run.eventsPerCommit} event(s) per commit: ${run.events} events, produced ${run.producedPerSecond}/s, ${run.endToEndEventsPerSecond} events/s end to end   [target ≥ 5,000 events/s]`,
    );
  }
  console.log(
    `  backlog of ${drain.events} events drained in ${drain.seconds.toFixed(2)} s: ${drain.eventsPerSecond} events/s`,
  );
  console.log(`  effects applied twice: ${duplicates}`);
}
if (!only || only === 'devices') {
  console.log('devices on real WireGuard (network namespaces, wireguard-go)');
  const result = await runDevicesBench({
    devices: Number(process.env.BENCH_DEVICES ?? 200),
    reconcilePeers: Number(process.env.BENCH_RECONCILE_PEERS ?? 10_000),
  });
  if ('skipped' in result) {
    console.log(`  skipped: ${result.skipped}`);
  } else {
    const { addToPeer, reconcile } = result;
    console.log(
      `  add device (201) → peer in wg show, ${addToPeer.devices} devices: p50 ${addToPeer.p50Ms.toFixed(1)} ms, p99 ${addToPeer.p99Ms.toFixed(1)} ms, max ${addToPeer.maxMs.toFixed(1)} ms   [target p99 < 100 ms]`,
    );
    console.log(
      `  reconcile ${reconcile.peers} peers on a fresh interface: ${(reconcile.ms / 1000).toFixed(2)} s, ${reconcile.applied} peers applied   [target < 5 s]`,
    );
  }
}
if (!only || only === 'analytics') {
  console.log('analytics: a two-year history through the projection, the Analytics page through the gateway');
  const result = await runAnalyticsBench({
    subscriptions: Number(process.env.BENCH_SUBSCRIPTIONS ?? 100_000),
    samples: Number(process.env.BENCH_SAMPLES ?? 40),
  });
  console.log(
    `  history: ${result.subscriptions} subscriptions, ${result.invoices} paid invoices, ${result.refunds} refunds, ${result.upgrades} upgrades, ${result.cancels} cancels; ${result.events} events published in ${result.publishSeconds.toFixed(1)} s`,
  );
  console.log(
    `  first projection built from the streams' history: ${result.buildSeconds.toFixed(1)} s, ${result.buildEventsPerSecond} events/s (MRR at the end $${(result.mrrCents / 100).toFixed(2)}, ${result.payingCustomers} paying)`,
  );
  console.log(
    `  full rebuild beside the live projection, switched when caught up: ${result.rebuildSeconds.toFixed(1)} s, ${result.rebuildEventsPerSecond} events/s`,
  );
  for (const route of result.perRoute)
    console.log(
      `  GET /api/admin/analytics/${route.path}: p50 ${route.p50.toFixed(1)} ms, p95 ${route.p95.toFixed(1)} ms   [target p95 < 50 ms]`,
    );
  console.log(
    `  the whole page's 13 requests together: p50 ${result.page.p50.toFixed(1)} ms, p95 ${result.page.p95.toFixed(1)} ms   [target < 300 ms]`,
  );
}
if (!only || only === 'admin') {
  console.log('operator console: every admin list page and the overview through the gateway, beside a bare route');
  const result = await runAdminBench({
    // BENCH_DEVICES sizes this section when it runs alone (`tsx bench/run.ts admin`); the devices bench reads it too.
    devices: Number(
      process.env.BENCH_ADMIN_DEVICES ?? (only === 'admin' ? process.env.BENCH_DEVICES : undefined) ?? 100_000,
    ),
    users: Number(process.env.BENCH_ADMIN_USERS ?? 20_000),
    nodes: Number(process.env.BENCH_ADMIN_NODES ?? 50),
    samples: Number(process.env.BENCH_SAMPLES ?? 40),
  });
  console.log(
    `  seeded ${result.devices} devices of ${result.users} people (${result.organizations} organizations) on ${result.nodes} nodes, ${Math.round(result.connected * 100)}% connected, in ${result.seedSeconds.toFixed(1)} s; overview: ${result.overview.users} users, ${result.overview.devices} devices, ${result.overview.active_devices} active`,
  );
  for (const row of result.results)
    console.log(
      `  ${row.name}: p50 ${row.p50.toFixed(1)} ms, p95 ${row.p95.toFixed(1)} ms${row.total !== undefined ? ` (total ${row.total})` : ''}`,
    );
}
if (!only || only === 'replicas') {
  console.log(
    'device path with 1 and 2 replicas of provisioning (separate processes; create-device RPCs, as the gateway asks)',
  );
  const result = await runReplicasBench({
    requests: Number(process.env.BENCH_REPLICA_REQUESTS ?? 1000),
    concurrency: Number(process.env.BENCH_CONCURRENCY ?? 32),
  });
  for (const run of result.runs)
    console.log(
      `  ${run.replicas} replica(s): ${run.requests} devices created on ${result.nodes} nodes in ${run.seconds.toFixed(1)} s by ${result.concurrency} callers at once: ${run.perSecond} requests/s, p50 ${run.p50Ms.toFixed(1)} ms, p99 ${run.p99Ms.toFixed(1)} ms`,
    );
}
if (!only || only === 'identities') {
  console.log('bus identities on a running NATS server (operator mode): a node user issued, then revoked');
  const result = await runBusIdentitiesBench(50);
  console.log(
    `  ${result.runs} nodes: issued → connected p50 ${result.issueToConnectedP50Ms.toFixed(1)} ms, max ${result.issueToConnectedMaxMs.toFixed(1)} ms; revoke → open connection closed p50 ${result.revokeToClosedP50Ms.toFixed(1)} ms, max ${result.revokeToClosedMaxMs.toFixed(1)} ms`,
  );
}
if (!only || only === 'failover') {
  console.log(
    'failover seen by a client of a three-server NATS cluster (network namespaces), a server killed with SIGKILL',
  );
  const result = await runNatsFailoverBench(Number(process.env.BENCH_FAILOVER_RUNS ?? 5));
  console.log(
    `  ${result.runs} kills each: RPC when the asker's server dies, ask → answer p50 ${result.rpcP50Ms.toFixed(0)} ms, max ${result.rpcMaxMs.toFixed(0)} ms (steady ${result.steadyRpcMs.toFixed(1)} ms); JetStream publish to an R3 stream when its leader dies, publish → ack p50 ${result.publishP50Ms.toFixed(0)} ms, max ${result.publishMaxMs.toFixed(0)} ms (steady ${result.steadyPublishMs.toFixed(1)} ms)`,
  );
}
process.exit(0);
