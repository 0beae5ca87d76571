import { readFileSync } from 'node:fs';
import { connect, type NatsConnection, type NodeConnectionOptions } from '@nats-io/transport-node';
import { jetstream, jetstreamManager, type JetStreamClient, type JetStreamManager } from '@nats-io/jetstream';
import type { Logger } from 'pino';
import { endRequestsWithoutStacks } from './answered-requests.ts';
import { coalesceWrites } from './coalesced-writes.ts';
import { credsSigner, credsUser } from './identities.ts';
import { Namespace } from './subjects.ts';

export type BusConnection = {
  nc: NatsConnection;
  js: JetStreamClient;
  jsm: JetStreamManager;
  ns: Namespace;
  /** The NATS user this process connected as; none on a server without authentication. */
  user: string | undefined;
  close(): Promise<void>;
};

export type BusOptions = {
  url: string;
  name: string;
  namespace: string;
  logger: Logger;
  /**
   * This process's NATS user as a `.creds` file (NATS_CREDS) or its content: a user JWT issued by
   * BusIdentities (identities.ts) and its seed. The user's name is the one in the JWT.
   */
  credsFile?: string | undefined;
  creds?: string | undefined;
  /**
   * The user and password of this process on a server that still lists its users in its
   * configuration; `user` with credentials must be the name they carry.
   */
  user?: string | undefined;
  password?: string | undefined;
  /**
   * The CA that signed the server's certificate (NATS_CA_FILE): the connection then uses TLS and
   * refuses a server whose certificate that CA did not sign for the host it dials.
   */
  caFile?: string | undefined;
};

/** The first token of every user's inbox: `_INBOX_U.<user>.<id>`. */
export const inboxRoot = '_INBOX_U';

/** Where a user's request answers arrive; each user may subscribe to its own prefix only. */
export function inboxPrefixOf(user: string): string {
  return `${inboxRoot}.${user}`;
}

/** The user whose inbox a request's reply subject is (`_INBOX_U.<user>.<id>`), if it is one. */
export function inboxOwnerOf(reply: string | undefined): string | undefined {
  const [root, user, id] = (reply ?? '').split('.');
  return root === inboxRoot && user && id ? user : undefined;
}

/** The user a process connects as: the name its credentials carry, else its configured user. */
export function busUserOf(options: Pick<BusOptions, 'creds' | 'credsFile' | 'user'>): string | undefined {
  const creds = options.creds ?? (options.credsFile ? readFileSync(options.credsFile, 'utf8') : undefined);
  if (creds === undefined) return options.user;
  const user = credsUser(creds);
  if (options.user && options.user !== user)
    throw new Error(`NATS_USER is ${options.user} but the credentials are ${user}'s`);
  return user;
}

/** Who this process is to the server, and how it knows the server: the options of its connection. */
export function busConnectOptions(options: Omit<BusOptions, 'logger' | 'namespace'>): NodeConnectionOptions {
  const user = busUserOf(options);
  const { creds, credsFile } = options;
  // The file is read at each (re)connect, so credentials issued again take effect without a restart.
  const auth =
    creds !== undefined || credsFile
      ? {
          authenticator: credsSigner(() => creds ?? readFileSync(credsFile!, 'utf8')),
        }
      : user
        ? { user, pass: options.password ?? '' }
        : {};
  return {
    // A cluster's servers as a comma-separated list: the client picks one and moves to another when it fails.
    servers: options.url.split(',').map((server) => server.trim()),
    name: options.name,
    ...auth,
    ...(user ? { inboxPrefix: inboxPrefixOf(user) } : {}),
    ...(options.caFile ? { tls: { caFile: options.caFile } } : {}),
    maxReconnectAttempts: -1,
    reconnectTimeWait: 250,
    waitOnFirstConnect: true,
    // A captured stack per request (two Error objects per JetStream publish) was a sixth of the
    // relay's CPU; errors still say what failed, only without the caller's async stack.
    noAsyncTraces: true,
  };
}

/** Connects and keeps reconnecting for as long as the process lives; a restart of NATS is an outage, not a crash. */
export async function connectBus(options: BusOptions): Promise<BusConnection> {
  const nc = await connect(busConnectOptions(options));
  if (!coalesceWrites(nc))
    options.logger.warn('this NATS client is not the shape coalesceWrites knows; each publish is written on its own');
  if (!endRequestsWithoutStacks())
    options.logger.warn(
      'this NATS client is not the shape endRequestsWithoutStacks knows; each request ends with a stack',
    );
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
    user: busUserOf(options),
    async close() {
      if (!nc.isClosed()) await nc.drain().catch(() => nc.close());
    },
  };
}
