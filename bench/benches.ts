/**
 * Every benchmark `make bench` runs, in this order. A new benchmark exports a `Bench` from
 * `bench/<name>.bench.ts` (bench/lib/figures.ts) and is appended here; `make bench NAME=<name>`
 * runs it alone. The runner's test (scripts/test/bench-runner.test.ts) runs each at size 'tiny'
 * unless `tinyExcluded` names it with a reason: keep 'tiny' to a few seconds.
 */
import type { Bench } from './lib/figures.ts';
import { adminBench } from './admin.bench.ts';
import { apiBench } from './api.bench.ts';
import { analyticsBench } from './analytics.bench.ts';
import { busIdentitiesBench } from './bus-identities.bench.ts';
import { busPipelineBench } from './bus-pipeline.bench.ts';
import { lcpBench } from './lcp.bench.ts';
import { natsFailoverBench } from './nats-failover.bench.ts';
import { replicasBench } from './replicas.bench.ts';
import { resolverBench } from './resolver.bench.ts';
import { telemetryBench } from './telemetry.bench.ts';
import { wireguardBench } from './wireguard.bench.ts';

export const benches: Bench[] = [
  apiBench,
  busPipelineBench,
  wireguardBench,
  analyticsBench,
  adminBench,
  replicasBench,
  busIdentitiesBench,
  natsFailoverBench,
  telemetryBench,
  lcpBench,
  resolverBench,
];

/** Benchmarks scripts/test/bench-runner.test.ts does not run at size 'tiny', and why (it must stay under 60 s). */
export const tinyExcluded: Record<string, string> = {
  admin: 'seeds three services and times 15 pages one request at a time: 20–60 s even at tiny',
  analytics: 'publishes a history and builds the projection twice: about 35 s even at tiny',
  failover: 'a three-server NATS cluster in namespaces and a 5 s wait per kill (about 30 s even at tiny)',
  replicas: 'spawns two provisioning processes and kills one under load: tens of seconds even at tiny',
  wireguard:
    'network namespaces, wireguard-go and three node-agent processes: about 70 s at tiny on two loaded cores (with tsx; not measured since the bundles); the tunnel tests cover the path',
  telemetry:
    'starts a telemetry process twice (a restart mid-batch); services/telemetry/test/ingest-bench.test.ts runs it at tiny',
};
