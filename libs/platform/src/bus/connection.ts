import { connect, type NatsConnection } from '@nats-io/transport-node';
import { jetstream, jetstreamManager, type JetStreamClient, type JetStreamManager } from '@nats-io/jetstream';
import type { Logger } from 'pino';
import { Namespace } from './subjects.ts';

export type BusConnection = {
  nc: NatsConnection;
  js: JetStreamClient;
  jsm: JetStreamManager;
  ns: Namespace;
  close(): Promise<void>;
};

/** Connects and keeps reconnecting for as long as the process lives; a restart of NATS is an outage, not a crash. */
export async function connectBus(options: { url: string; name: string; namespace: string; logger: Logger }): Promise<BusConnection> {
  const nc = await connect({
    servers: options.url,
    name: options.name,
    maxReconnectAttempts: -1,
    reconnectTimeWait: 250,
    waitOnFirstConnect: true,
    // A captured stack per request (two Error objects per JetStream publish) was a sixth of the
    // relay's CPU; errors still say what failed, only without the caller's async stack.
    noAsyncTraces: true,
  });
  void (async () => {
    for await (const status of nc.status()) {
      if (status.type === 'disconnect' || status.type === 'reconnect') options.logger.warn({ nats: status.type }, 'nats connection status');
    }
  })();
  const jsm = await jetstreamManager(nc);
  const js = jetstream(nc);
  return {
    nc,
    js,
    jsm,
    ns: new Namespace(options.namespace),
    async close() {
      if (!nc.isClosed()) await nc.drain().catch(() => nc.close());
    },
  };
}
