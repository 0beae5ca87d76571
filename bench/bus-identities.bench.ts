/**
 * Bus identities on a running server (startTestBus: operator mode, nats-server of this machine):
 * how long issuing a node's user takes until it is connected, and how long a revocation takes
 * from the call until the server has closed that user's open connection. No server is touched
 * or restarted in either.
 */
import { connect, credsAuthenticator } from '@nats-io/transport-node';
import { nodeUser } from '@qw/contracts';
import { startTestBus } from '@qw/testkit';
import type { Bench } from './lib/figures.ts';

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? Number.NaN;
}

export type BusIdentitiesBenchResult = {
  runs: number;
  issueToConnectedP50Ms: number;
  issueToConnectedMaxMs: number;
  revokeToClosedP50Ms: number;
  revokeToClosedMaxMs: number;
};

export async function runBusIdentitiesBench(runs = 50): Promise<BusIdentitiesBenchResult> {
  const bus = await startTestBus();
  const issued: number[] = [];
  const revoked: number[] = [];
  try {
    for (let run = 0; run < runs; run++) {
      const name = `bench-${run}`;
      const startedIssue = performance.now();
      await bus.addNode(name);
      const nc = await connect({
        servers: bus.url,
        authenticator: credsAuthenticator(new TextEncoder().encode(bus.credentials(nodeUser(name)).creds)),
        reconnect: false,
        tls: { caFile: bus.caFile },
      });
      await nc.flush();
      issued.push(performance.now() - startedIssue);
      const closed = nc.closed();
      const startedRevoke = performance.now();
      await bus.revoke(nodeUser(name));
      await closed;
      revoked.push(performance.now() - startedRevoke);
    }
  } finally {
    await bus.stop();
  }
  issued.sort((a, b) => a - b);
  revoked.sort((a, b) => a - b);
  return {
    runs,
    issueToConnectedP50Ms: percentile(issued, 50),
    issueToConnectedMaxMs: issued.at(-1)!,
    revokeToClosedP50Ms: percentile(revoked, 50),
    revokeToClosedMaxMs: revoked.at(-1)!,
  };
}

export const busIdentitiesBench: Bench = {
  name: 'identities',
  title: 'bus identities on a running NATS server (operator mode): a node user issued, then revoked',
  async run(size) {
    const result = await runBusIdentitiesBench(size === 'tiny' ? 5 : 50);
    const note = `${result.runs} nodes, one after another`;
    return [
      { figure: 'node user issued → connected: p50', value: result.issueToConnectedP50Ms, unit: 'ms', note },
      { figure: 'node user issued → connected: max', value: result.issueToConnectedMaxMs, unit: 'ms', note },
      { figure: 'revoked → open connection closed: p50', value: result.revokeToClosedP50Ms, unit: 'ms', note },
      { figure: 'revoked → open connection closed: max', value: result.revokeToClosedMaxMs, unit: 'ms', note },
    ];
  },
};
