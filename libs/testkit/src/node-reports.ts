import { reportNodeRpc } from '@qw/contracts';
import { RpcClient, type BusConnection } from '@qw/platform/bus';

/**
 * Keeps a test's agent-less node reachable: it reports on the node's own connection as a node
 * agent does (once now, then every `everyMs`, 5 s by default, well inside the 30 s after which a
 * node is unreachable) until that connection closes, which the stack's stop does. The timer is
 * unref'd: it never holds a test process open. Answers a function that stops the reports earlier
 * (resolved once none is in flight: the node is silent from then on).
 */
export function keepReporting(bus: BusConnection, name: string, everyMs = 5_000): () => Promise<void> {
  const rpc = new RpcClient(bus);
  const startedAt = new Date().toISOString();
  let inFlight: Promise<unknown> = Promise.resolve();
  const report = () =>
    (inFlight = rpc
      .request(reportNodeRpc, { agent_version: 'test', started_at: startedAt, peers: 0 }, undefined, {
        params: { node: name },
      })
      .catch(() => undefined));
  const timer = setInterval(() => {
    if (bus.nc.isClosed()) clearInterval(timer);
    else void report();
  }, everyMs);
  timer.unref();
  void report();
  return async () => {
    clearInterval(timer);
    await inFlight;
  };
}
