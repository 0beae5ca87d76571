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

export type BusOptions = {
  url: string;
  name: string;
  namespace: string;
  logger: Logger;
  /** The NATS user and password of this process (one user per service and per node agent). */
  user?: string | undefined;
  password?: string | undefined;
};

/** The first token of every user's inbox: `_INBOX_U.<user>.<id>`. */
export const inboxRoot = '_INBOX_U';

/** Where a user's request answers arrive; each user may subscribe to its own prefix only. */
export function inboxPrefixOf(user: string): string {
  return `${inboxRoot}.${user}`;
}

/** Connects and keeps reconnecting for as long as the process lives; a restart of NATS is an outage, not a crash. */
export async function connectBus(options: BusOptions): Promise<BusConnection> {
  const nc = await connect({
    servers: options.url,
    name: options.name,
    ...(options.user
      ? { user: options.user, pass: options.password ?? '', inboxPrefix: inboxPrefixOf(options.user) }
      : {}),
    maxReconnectAttempts: -1,
    reconnectTimeWait: 250,
    waitOnFirstConnect: true,
    // A captured stack per request (two Error objects per JetStream publish) was a sixth of the
    // relay's CPU; errors still say what failed, only without the caller's async stack.
    noAsyncTraces: true,
  });
  void (async () => {
    for await (const status of nc.status()) {
      if (status.type === 'disconnect' || status.type === 'reconnect')
        options.logger.warn({ nats: status.type }, 'nats connection status');
    }
  })();
  // No API check at connect: a node agent may not ask for account information.
  const jsm = await jetstreamManager(nc, { checkAPI: false });
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
