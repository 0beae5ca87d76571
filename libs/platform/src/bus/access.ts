import { fillSubject, wildcardSubject, type BusAccess } from '@qw/contracts';
import { inboxPrefixOf, inboxRoot } from './connection.ts';
import type { NatsOperatorAuth } from './identities.ts';
import { Namespace } from './subjects.ts';

export type NatsPermissions = {
  publish: { allow: string[]; deny?: string[] };
  subscribe: { allow: string[] };
};

/**
 * The NATS permissions that give a user exactly its declared access (libs/contracts
 * bus-access.ts), as allow-lists: the subjects of the RPCs it asks and answers, its events, the
 * JetStream API calls for the streams it declares and for its own durable consumers (by stream
 * and durable name, so nobody pulls or remakes another's consumer), and its own inbox for
 * answers. Everything else is refused by the server.
 */
export function natsPermissions(user: string, access: BusAccess, ns: Namespace = new Namespace('')): NatsPermissions {
  const subject = (s: string) => ns.subject(access.node ? fillSubject(s, { node: access.node }) : wildcardSubject(s));
  const publish = new Set<string>();
  for (const call of access.calls) publish.add(subject(call.subject));
  for (const event of access.publishes) publish.add(subject(event));
  for (const owner of access.declares) {
    const stream = ns.stream(owner);
    for (const verb of ['CREATE', 'UPDATE', 'INFO']) publish.add(`$JS.API.STREAM.${verb}.${stream}`);
    // The outbox relay reads back what the stream holds after a restart, to publish what it lost.
    publish.add(`$JS.API.STREAM.MSG.GET.${stream}`);
  }
  for (const owner of access.makesConsumersOn ?? []) {
    // Made (and brought up to date) for someone else, looked at, never read.
    const stream = ns.stream(owner);
    publish.add(`$JS.API.CONSUMER.CREATE.${stream}.>`);
    publish.add(`$JS.API.CONSUMER.DURABLE.CREATE.${stream}.*`);
    publish.add(`$JS.API.CONSUMER.INFO.${stream}.*`);
  }
  const consumes = Object.entries(access.consumes);
  for (const [owner, durables] of consumes) {
    const stream = ns.stream(owner);
    publish.add(`$JS.API.STREAM.INFO.${stream}`);
    for (const name of durables) {
      const durable = ns.durable(name);
      // CREATE.<stream>.<durable>.<filter> is how a current client makes or updates one.
      publish.add(`$JS.API.CONSUMER.CREATE.${stream}.${durable}`);
      publish.add(`$JS.API.CONSUMER.CREATE.${stream}.${durable}.>`);
      publish.add(`$JS.API.CONSUMER.DURABLE.CREATE.${stream}.${durable}`);
      publish.add(`$JS.API.CONSUMER.INFO.${stream}.${durable}`);
      publish.add(`$JS.API.CONSUMER.MSG.NEXT.${stream}.${durable}`);
      publish.add(`$JS.ACK.${stream}.${durable}.>`);
    }
  }
  if (consumes.length > 0) {
    // Consumers keep poison messages in the dead-letter stream.
    const deadLetters = ns.stream('deadletter');
    for (const verb of ['CREATE', 'INFO']) publish.add(`$JS.API.STREAM.${verb}.${deadLetters}`);
    publish.add(ns.subject('deadletter.>'));
  }
  for (const used of access.uses ?? []) {
    const [owner, name] = used.split('/') as [string, string];
    const stream = ns.stream(owner);
    const durable = ns.durable(name);
    publish.add(`$JS.API.CONSUMER.INFO.${stream}.${durable}`);
    publish.add(`$JS.API.CONSUMER.MSG.NEXT.${stream}.${durable}`);
    publish.add(`$JS.ACK.${stream}.${durable}.>`);
  }
  // An RPC server answers on the asker's inbox. NATS's `allow_responses` would do that too, but
  // it also remembers every JetStream message delivered to the connection (they carry a reply
  // subject) for two minutes and scans that whole list on each delivery once it holds more than
  // 4096: a service reading a backlog fell from ~60,000 to ~700 messages a second. The inboxes are
  // `_INBOX_U.<user>.<random id>`, so a server may publish there, but only a user may read its own.
  if (access.serves.length > 0) publish.add(`${inboxRoot}.*.>`);
  const subscribe = [...new Set(access.serves.map((rpc) => subject(rpc.subject))), `${inboxPrefixOf(user)}.>`];
  // An empty allow list would mean no restriction to the server: say "nothing" outright.
  return {
    publish: { allow: [...publish].sort(), ...(publish.size === 0 ? { deny: ['>'] } : {}) },
    subscribe: { allow: subscribe.sort() },
  };
}

/**
 * The longest protocol line an operator-mode server of ours reads (natsServerConfig sets it): a
 * user's CONNECT carries its JWT with every allowed subject (analytics' is near 70 kB; the
 * server's default of 4 kB refuses it). `issue` refuses a JWT that would not fit.
 */
export const natsMaxControlLine = 512 * 1024;

/** A password written into the configuration, or the name of an environment variable the server reads it from. */
export type NatsSecret = { value: string } | { env: string };

export type NatsUser = { user: string; password: NatsSecret; permissions: NatsPermissions | 'all' };

/**
 * A nats-server configuration with JetStream, and either the users of an operator (JWTs issued
 * at run time by BusIdentities, identities.ts) or one configured user per process. `all` gives a
 * configured user every right (the operator's own tools, never a service).
 */
export function natsServerConfig(options: {
  listen: string;
  storeDir: string;
  users?: NatsUser[];
  operator?: NatsOperatorAuth;
  /** Files the server reads in besides (relative to this one): an installation's operator settings, natsOperatorConfig. */
  includes?: string[];
  monitorPort?: number;
  header?: string;
  /** The server's certificate and key: every client then connects over TLS. */
  tls?: { certFile: string; keyFile: string };
}): string {
  const value = (v: unknown): string => JSON.stringify(v);
  const secret = (s: NatsSecret) => ('env' in s ? `$${s.env}` : value(s.value));
  const users = (options.users ?? []).map(({ user, password, permissions }) => {
    const rights = permissions === 'all' ? { publish: { allow: ['>'] }, subscribe: { allow: ['>'] } } : permissions;
    return `    { user: ${value(user)}, password: ${secret(password)}, permissions: ${value(rights)} }`;
  });
  return [
    ...(options.header ? options.header.split('\n').map((line) => `# ${line}`.trimEnd()) : []),
    `listen: ${value(options.listen)}`,
    ...(options.monitorPort ? [`http: ${options.monitorPort}`] : []),
    `jetstream { store_dir: ${value(options.storeDir)} }`,
    ...(options.tls
      ? [`tls { cert_file: ${value(options.tls.certFile)}, key_file: ${value(options.tls.keyFile)}, timeout: 2 }`]
      : []),
    ...(options.operator ? operatorLines(options.operator) : []),
    ...(options.includes ?? []).map((file) => `include ${value(file)}`),
    ...(users.length > 0 ? ['authorization {', '  users: [', users.join('\n'), '  ]', '}'] : []),
    '',
  ].join('\n');
}

/**
 * Operator mode with the `full` resolver: the server stores the account JWTs pushed to it over the
 * system account (a revocation is one) and shares them with the rest of its cluster.
 */
export function natsOperatorConfig(auth: NatsOperatorAuth): string {
  return `${operatorLines(auth).join('\n')}\n`;
}

function operatorLines(auth: NatsOperatorAuth): string[] {
  const value = (v: unknown): string => JSON.stringify(v);
  return [
    // A client sends its JWT, permissions and all, in its CONNECT line; analytics' lists its many durables.
    `max_control_line: ${natsMaxControlLine}`,
    `operator: ${value(auth.operatorJwt)}`,
    `system_account: ${value(auth.systemAccount)}`,
    `resolver { type: full, dir: ${value(auth.resolverDir)}, allow_delete: false, interval: "2m", timeout: "1.9s" }`,
    'resolver_preload {',
    ...Object.entries(auth.preload).map(([account, jwt]) => `  ${account}: ${value(jwt)}`),
    '}',
  ];
}
