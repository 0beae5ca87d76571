/** `make bench`: runs every benchmark and prints its figures (no pass/fail: targets are read by people). */
import { runBusPipelineBench } from './bus-pipeline.bench.ts';
import { runDevicesBench } from './devices.bench.ts';

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
  console.log(`  paced ${paced.targetRate}/s (achieved ${paced.achievedRate}/s, ${paced.events} events, after 2 s of warm-up): commit→effect p50 ${paced.p50Ms.toFixed(1)} ms, p99 ${paced.p99Ms.toFixed(1)} ms, max ${paced.maxMs.toFixed(1)} ms   [target p99 < 20 ms]`);
  console.log(`    of which commit→stored in JetStream p50 ${paced.relayP50Ms.toFixed(1)} ms, p99 ${paced.relayP99Ms.toFixed(1)} ms; stored→effect p50 ${paced.consumerP50Ms.toFixed(1)} ms, p99 ${paced.consumerP99Ms.toFixed(1)} ms`);
  for (const run of sustained) {
    console.log(`  sustained, ${producers} producers, ${run.eventsPerCommit} event(s) per commit: ${run.events} events, produced ${run.producedPerSecond}/s, ${run.endToEndEventsPerSecond} events/s end to end   [target ≥ 5,000 events/s]`);
  }
  console.log(`  backlog of ${drain.events} events drained in ${drain.seconds.toFixed(2)} s: ${drain.eventsPerSecond} events/s`);
  console.log(`  effects applied twice: ${duplicates}`);
}
if (!only || only === 'devices') {
  console.log('devices on real WireGuard (network namespaces, wireguard-go)');
  const result = await runDevicesBench({ devices: Number(process.env.BENCH_DEVICES ?? 200), reconcilePeers: Number(process.env.BENCH_RECONCILE_PEERS ?? 10_000) });
  if ('skipped' in result) {
    console.log(`  skipped: ${result.skipped}`);
  } else {
    const { addToPeer, reconcile } = result;
    console.log(`  add device (201) → peer in wg show, ${addToPeer.devices} devices: p50 ${addToPeer.p50Ms.toFixed(1)} ms, p99 ${addToPeer.p99Ms.toFixed(1)} ms, max ${addToPeer.maxMs.toFixed(1)} ms   [target p99 < 100 ms]`);
    console.log(`  reconcile ${reconcile.peers} peers on a fresh interface: ${(reconcile.ms / 1000).toFixed(2)} s, ${reconcile.applied} peers applied   [target < 5 s]`);
  }
}
process.exit(0);
