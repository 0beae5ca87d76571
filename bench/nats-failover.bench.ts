/**
 * Failover seen by a client of the three-server cluster (startNatsCluster: network namespaces,
 * operator mode, TLS): requests are asked one after another, each retried until answered, while
 * a NATS server dies with SIGKILL. The figure is the longest wait from asking to the answer
 * around the kill:
 *  - an RPC (core request/reply, a responder on the cluster) when the server the asker is
 *    connected to dies: the client notices, reconnects to another server and asks again;
 *  - a JetStream publish to a stream of three replicas when the server leading the stream dies:
 *    the two others elect a new leader, which acknowledges.
 */
import { randomUUID } from 'node:crypto';
import { startNatsCluster } from '@qw/testkit';
import type { Bench } from './lib/figures.ts';

export type FailoverBenchResult = {
  runs: number;
  rpcP50Ms: number;
  rpcMaxMs: number;
  publishP50Ms: number;
  publishMaxMs: number;
  /** A request/publish with no server dying, for scale. */
  steadyRpcMs: number;
  steadyPublishMs: number;
};

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? Number.NaN;
}

/** Asks `once` in a loop until `stop`, each retried until it succeeds; answers the longest ask→answer. */
async function longestWait(
  once: () => Promise<unknown>,
  stop: Promise<void>,
): Promise<{ longest: number; typical: number }> {
  let stopped = false;
  void stop.then(() => (stopped = true));
  let longest = 0;
  const waits: number[] = [];
  while (!stopped) {
    const asked = performance.now();
    for (;;) {
      try {
        await once();
        break;
      } catch {
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    }
    const wait = performance.now() - asked;
    waits.push(wait);
    longest = Math.max(longest, wait);
  }
  waits.sort((a, b) => a - b);
  return { longest, typical: percentile(waits, 50) };
}

export async function runNatsFailoverBench(runs = 5): Promise<FailoverBenchResult> {
  const cluster = await startNatsCluster();
  const rpcWaits: number[] = [];
  const publishWaits: number[] = [];
  let steadyRpc = 0;
  let steadyPublish = 0;
  try {
    const responder = await cluster.connect(cluster.admin.user, 'bench-responder');
    responder.nc.subscribe('bench.echo', {
      queue: 'echo',
      callback: (_error, message) => void message.respond(message.data),
    });
    await responder.nc.flush();
    const stream = 'FAILOVER';
    await responder.jsm.streams.add({ name: stream, subjects: ['bench.failover'], num_replicas: 3 });
    for (let run = 0; run < runs; run++) {
      // RPC: kill the server the asker is connected to.
      const asker = await cluster.connect(cluster.admin.user, `bench-asker-${run}`);
      const ask = () => asker.nc.request('bench.echo', 'ping', { timeout: 250 });
      await ask();
      const onServer = cluster.servers.findIndex((server) => server.name === asker.nc.info?.server_name);
      const rpc = longestWait(
        ask,
        wait(2000).then(() => killAndWait(onServer)),
      );
      const rpcFigures = await rpc;
      rpcWaits.push(rpcFigures.longest);
      steadyRpc = rpcFigures.typical;
      await cluster.start(onServer);
      await asker.close();

      // JetStream: kill the stream's leader.
      const publisher = await cluster.connect(cluster.admin.user, `bench-publisher-${run}`);
      const publish = () => publisher.js.publish('bench.failover', 'x', { msgID: randomUUID(), timeout: 500 });
      await waitCurrent(publisher, stream);
      const leader = (await publisher.jsm.streams.info(stream)).cluster?.leader;
      const leaderIndex = Math.max(
        0,
        cluster.servers.findIndex((server) => server.name === leader),
      );
      const published = await longestWait(
        publish,
        wait(2000).then(() => killAndWait(leaderIndex)),
      );
      publishWaits.push(published.longest);
      steadyPublish = published.typical;
      await cluster.start(leaderIndex);
      await waitCurrent(publisher, stream);
      await publisher.close();
    }
    await responder.close();
  } finally {
    await cluster.stop();
  }

  /** Kills the server, then lets the loop run 5 s more so the wait around the kill is over. */
  async function killAndWait(index: number) {
    await cluster.kill(index);
    await wait(5000);
  }
  rpcWaits.sort((a, b) => a - b);
  publishWaits.sort((a, b) => a - b);
  return {
    runs,
    rpcP50Ms: percentile(rpcWaits, 50),
    rpcMaxMs: rpcWaits.at(-1)!,
    publishP50Ms: percentile(publishWaits, 50),
    publishMaxMs: publishWaits.at(-1)!,
    steadyRpcMs: steadyRpc,
    steadyPublishMs: steadyPublish,
  };
}

function wait(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** Until every replica of the stream is current again (a restarted server has caught up). */
async function waitCurrent(
  bus: { jsm: { streams: { info(name: string): Promise<{ cluster?: { replicas?: Array<{ current: boolean }> } }> } } },
  stream: string,
) {
  for (let i = 0; i < 600; i++) {
    const info = await bus.jsm.streams.info(stream).catch(() => undefined);
    const replicas = info?.cluster?.replicas ?? [];
    if (replicas.length === 2 && replicas.every((replica) => replica.current)) return;
    await wait(100);
  }
  throw new Error(`stream ${stream} did not catch up`);
}

export const natsFailoverBench: Bench = {
  name: 'failover',
  title: 'failover seen by a client of a three-server NATS cluster (network namespaces), a server killed with SIGKILL',
  async run(size) {
    const result = await runNatsFailoverBench(size === 'tiny' ? 1 : Number(process.env.BENCH_FAILOVER_RUNS ?? 5));
    const note = `${result.runs} kill(s) each; the baseline is an ask with no server dying`;
    const steady = (value: number) => ({ label: 'no server dying', value });
    return [
      {
        figure: "RPC when the asker's server dies: ask → answer p50",
        value: result.rpcP50Ms,
        unit: 'ms',
        baseline: steady(result.steadyRpcMs),
        note,
      },
      {
        figure: "RPC when the asker's server dies: ask → answer max",
        value: result.rpcMaxMs,
        unit: 'ms',
        baseline: steady(result.steadyRpcMs),
        note,
      },
      {
        figure: 'publish to an R3 stream when its leader dies: publish → ack p50',
        value: result.publishP50Ms,
        unit: 'ms',
        baseline: steady(result.steadyPublishMs),
        note,
      },
      {
        figure: 'publish to an R3 stream when its leader dies: publish → ack max',
        value: result.publishMaxMs,
        unit: 'ms',
        baseline: steady(result.steadyPublishMs),
        note,
      },
    ];
  },
};
