import { eventCatalog } from './catalog.ts';
import type { BackendService } from './services.ts';
import { fillSubject, nodeParam } from './subjects.ts';

/**
 * Who may do what on the bus. NATS has one user per service, per gateway and per node agent; the
 * server configuration (deploy/nats.conf, and the servers that `make dev` and the tests run) is
 * generated from this declaration, so a process can publish, subscribe and request exactly what
 * is written here and nothing else.
 */
export type BusAccess = {
  /** RPC subjects it answers (`{node}` templates allowed): it subscribes and replies to each request once. */
  serves: readonly string[];
  /** RPC subjects it may ask (wildcards allowed). */
  calls: readonly string[];
  /** RPC subjects it may never ask even when `calls` matches them. */
  neverCalls?: readonly string[];
  /** Event subjects it may publish: its own events. */
  publishes: readonly string[];
  /** Streams (by owner) it declares and manages, their consumers included. */
  declares: readonly string[];
  /** Streams (by owner) it reads through durable consumers of its own. */
  reads: readonly string[];
  /** Durable consumers made for it by someone else, which it may read but not change: `stream/durable`. */
  uses?: readonly string[];
};

export type BusPrincipal = 'gateway' | BackendService;

function eventsOf(owner: string): string[] {
  return eventCatalog.filter((event) => event.subject.startsWith(`${owner}.`)).map((event) => event.subject);
}

const backendRpc = ['identity', 'billing', 'provisioning', 'telemetry', 'analytics'].map((owner) => `${owner}.rpc.>`);
/** The node agents' own RPCs: nobody but a node agent asks them. */
const nodeRpc = `provisioning.rpc.node.${nodeParam}.>`;

export const busAccess: Record<BusPrincipal, BusAccess> = {
  gateway: {
    serves: [],
    calls: backendRpc,
    // Node agents' RPCs, and the services' own questions to each other.
    neverCalls: [
      'provisioning.rpc.node.>',
      'identity.rpc.mail-address',
      'identity.rpc.membership',
      'billing.rpc.active-plan',
      // Tools of the tests and the demo history (the admin connection asks them).
      'billing.rpc.advance-clock',
      'billing.rpc.start-clock',
      'provisioning.rpc.advance-clock',
      'identity.rpc.demo-sign-up',
      // The operator console's questions services ask each other (the gateway asks their owners' lists).
      'identity.rpc.admin-directory',
      'identity.rpc.admin-find-users',
      'provisioning.rpc.admin-device-names',
      'telemetry.rpc.admin-node-stats',
    ],
    // The visits it counts for the funnel (the stream is analytics', the gateway manages none).
    publishes: eventsOf('gateway'),
    declares: [],
    reads: [],
  },
  identity: {
    serves: ['identity.rpc.>'],
    calls: [],
    publishes: eventsOf('identity'),
    declares: ['identity'],
    // Billing's subscriptions (an organization whose plan ended is Suspended) and provisioning's
    // device changes (the organizations' audit log).
    reads: ['billing', 'provisioning'],
  },
  billing: {
    serves: ['billing.rpc.>'],
    calls: ['identity.rpc.get-me', 'identity.rpc.membership'],
    publishes: eventsOf('billing'),
    declares: ['billing'],
    reads: [],
  },
  provisioning: {
    serves: ['provisioning.rpc.>'],
    calls: [
      'identity.rpc.get-me',
      'identity.rpc.mail-address',
      'identity.rpc.membership',
      'billing.rpc.active-plan',
      'telemetry.rpc.latest',
      // The operator console's device list and servers (each with the admin's own assertion).
      'identity.rpc.admin-directory',
      'identity.rpc.admin-find-users',
      'telemetry.rpc.admin-node-stats',
    ],
    publishes: eventsOf('provisioning'),
    declares: ['provisioning'],
    // Billing's subscriptions (entitlements), identity's organizations (members, roles, status)
    // and telemetry's newer handshakes (each device's "connected now").
    reads: ['billing', 'identity', 'telemetry'],
  },
  // Telemetry declares the stream of the node agents' samples: it is their only reader, and a
  // node agent (on a host exposed to the internet) has no right to manage streams.
  telemetry: {
    serves: ['telemetry.rpc.>'],
    // The names of the devices on the console's Telemetry page (with the admin's own assertion).
    calls: ['provisioning.rpc.admin-device-names'],
    publishes: eventsOf('telemetry'),
    declares: ['node', 'telemetry'],
    reads: ['provisioning', 'node'],
  },
  // Analytics declares the stream of the gateway's visit counts (the gateway, facing the internet,
  // manages no stream) and reads billing's, identity's and the gateway's history.
  analytics: {
    serves: ['analytics.rpc.>'],
    calls: [],
    publishes: [],
    declares: ['gateway'],
    reads: ['billing', 'identity', 'gateway'],
  },
};

/** The NATS user of a node agent. */
export function nodeUser(node: string): string {
  return `node-${node}`;
}

/** The durable consumer provisioning makes for a node when it registers; the node only reads it. */
export function nodeConsumerName(node: string): string {
  return `node-${node}`;
}

/**
 * A node agent may ask only its own node's RPCs, publish only its own node's samples and read
 * only its own durable consumer, whose filter (set by provisioning) is its own peer subjects.
 */
export function nodeBusAccess(node: string): BusAccess {
  return {
    serves: [],
    calls: [fillSubject(nodeRpc, { node })],
    publishes: eventsOf('node').map((subject) => fillSubject(subject, { node })),
    declares: [],
    reads: [],
    uses: [`provisioning/${nodeConsumerName(node)}`],
  };
}

/** The subject a node's durable consumer follows: its own peer changes, nothing else. */
export function nodePeerSubjects(node: string): string {
  return `provisioning.peers.${node}`;
}
