import { existsSync } from 'node:fs';
import { chmod, mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { ConsumerMessages, JsMsg } from '@nats-io/jetstream';
import type { Logger } from 'pino';
import type { Static, TSchema } from 'typebox';
import {
  desiredPeersRpc,
  fillSubject,
  handshakesChanged,
  hostSampled,
  nodeConsumerName,
  nodePeerChanged,
  nodeUser,
  peersSampled,
  registerNodeRpc,
  reportNodeRpc,
  subjectParams,
  type EventContract,
} from '@qw/contracts';
import {
  RpcClient,
  connectBus,
  createEnvelope,
  decodeEnvelope,
  outboxSequenceOf,
  type BusConnection,
} from '@qw/platform/bus';
import {
  generateKeyPair,
  maskEndpoint,
  planReconcile,
  publicKeyFromPrivate,
  type PeerChange as WgPeerChange,
} from '@qw/wireguard';
import { agentVersion } from './agent-version.ts';
import { egressOf, type NodeAgentConfig } from './config.ts';
import { HandshakeWatch } from './handshake-watch.ts';
import { hostMetricsReader, interfaceReading } from './host-metrics.ts';
import { probeAll, probeTargets } from './latency.ts';
import { samplePages } from './sample-pages.ts';
import { nodeResolverFor, startNodeResolver } from './resolver/agent-resolver.ts';
import type { NodeResolver } from './resolver/node-resolver.ts';
import { withPresharedKey } from './preshared-keys.ts';
import { PeerChangeOrder } from './peer-order.ts';
import { serveTunnelCheck } from './tunnel-check.ts';
import { WgHost } from './wg-host.ts';
import { enableForwarding, prefixedExec } from './forwarding.ts';

/**
 * The desired set is asked in pages of these sizes (the last repeats): a small first page sets
 * wireguard-go to work after a few milliseconds instead of after the 50 ms a page of 2,000 takes
 * to ask, and each later page is asked while the one before is applied.
 */
const reconcilePageSizes = [250, 1000, 2000] as const;

/** Milliseconds are whole; the three parts leave out planning and the agent's own work between them. */
export type ReconcileFigures = {
  peers: number;
  changes: number;
  ms: number;
  readMs: number;
  askMs: number;
  applyWaitMs: number;
};

/**
 * One per WireGuard server: registers the node, applies each provisioning event to the interface
 * as it arrives, reconciles the whole desired peer set at start, each time the bus connection
 * comes back and every RECONCILE_SECONDS (adds, removes and fixes what drifted), reports to
 * provisioning every NODE_REPORT_SECONDS (a node silent for 30 s is unreachable), and publishes
 * peer samples and host metrics, and, every HANDSHAKE_WATCH_SECONDS, the peers that have just
 * connected (only those: a second without one publishes nothing).
 */
export class NodeAgent {
  private bus: BusConnection | undefined;
  private rpc: RpcClient | undefined;
  private messages: ConsumerMessages | undefined;
  private reading: Promise<void> | undefined;
  private timers: NodeJS.Timeout[] = [];
  private reconciling: Promise<void> | undefined;
  private watching: Promise<void> | undefined;
  private stopped = false;
  private probeOffset = 0;
  /** The newest change applied to each key: a redelivered older one must not undo it. */
  private readonly order = new PeerChangeOrder();
  /** Peers on the interface at the latest sample, for the host metrics (the server's 24 h history). */
  private peersSeen: number | undefined;
  private startedAt = new Date();
  private tunnelCheck: { stop(): Promise<void> } | undefined;
  private readonly version: string;
  readonly host: WgHost;
  /** The node's own resolver (unbound) on its tunnel addresses: resolver/node-resolver.ts. */
  readonly resolver: NodeResolver;
  nodeId: string | undefined;
  /**
   * Called when the interface has taken a peer change from the bus (UAPI answered, or `wg set` returned), with the keys it set or
   * removed and `performance.now()` at that moment: when the peers went live, as the agent saw it
   * (the WireGuard benchmark reads it; nothing else does).
   */
  onPeersApplied: ((publicKeys: readonly string[], at: number, steps: AppliedSteps) => void) | undefined;
  /**
   * The last reconcile that ran: peers desired, changes applied, milliseconds from asking to
   * applied, and of those: reading the interface, waiting for provisioning's pages, and waiting for
   * the interface to take a page when the next had already come (plus the removals).
   */
  lastReconcile: ReconcileFigures | undefined;

  constructor(
    private readonly config: NodeAgentConfig,
    private readonly logger: Logger,
  ) {
    this.host = new WgHost(config.WG_INTERFACE, config.WG_COMMAND_PREFIX, config.WG_CONTROL);
    this.version = agentVersion(config.AGENT_VERSION);
    this.resolver = nodeResolverFor(config, logger);
  }

  async start(): Promise<void> {
    const { config, logger } = this;
    // A NODE_EGRESS that is not addresses stops the agent here, before it joins the bus.
    const egress = egressOf(config);
    this.startedAt = new Date();
    this.stopped = false;
    this.bus = await connectBus({
      url: config.NATS_URL,
      name: `node-agent-${config.NODE_NAME}`,
      namespace: config.BUS_NAMESPACE,
      logger,
      credsFile: config.NATS_CREDS,
      user: config.NATS_CREDS
        ? config.NATS_USER
        : config.NATS_PASSWORD
          ? (config.NATS_USER ?? nodeUser(config.NODE_NAME))
          : undefined,
      password: config.NATS_PASSWORD,
      caFile: config.NATS_CA_FILE,
    });
    this.rpc = new RpcClient(this.bus, 10_000);
    const publicKey = await this.configureInterface();
    logger.info({ control: await this.host.path() }, 'peers applied through uapi (the interface socket) or wg');
    const node = { params: { node: config.NODE_NAME } };
    const addressing = await this.untilAnswered(() =>
      this.rpc!.request(
        registerNodeRpc,
        {
          region: config.NODE_REGION,
          endpoint: config.WG_ENDPOINT,
          public_key: publicKey,
          ip: config.NODE_IP,
          egress,
          ...(config.NODE_SSH_USER ? { ssh_user: config.NODE_SSH_USER } : {}),
          ...(config.NODE_SSH_PORT ? { ssh_port: config.NODE_SSH_PORT } : {}),
          tags: config.NODE_TAGS.split(',')
            .map((t) => t.trim())
            .filter(Boolean),
          ...(config.NODE_CITY ? { city: config.NODE_CITY } : {}),
          ...(config.NODE_CAPACITY ? { capacity: config.NODE_CAPACITY } : {}),
        },
        undefined,
        node,
      ),
    );
    this.nodeId = addressing.node_id;
    await this.report().catch((error: unknown) => logger.warn({ err: error }, 'node report failed'));
    await this.assignAddresses(addressing.node_ipv4, addressing.ipv4_cidr, addressing.node_ipv6, addressing.ipv6_cidr);
    if (config.NODE_FORWARDING === 'on')
      await enableForwarding(
        prefixedExec(config.WG_COMMAND_PREFIX),
        {
          iface: config.WG_INTERFACE,
          ipv4Cidr: addressing.ipv4_cidr,
          ipv6Cidr: addressing.ipv6_cidr,
          egressInterface: config.NODE_EGRESS_INTERFACE,
        },
        logger,
      );
    await startNodeResolver(this.resolver, this.host, path.resolve(config.NODE_RESOLVER_DIR), addressing, logger);
    this.tunnelCheck = await serveTunnelCheck(this.host, config, addressing, logger);
    // Catch up first (the agent may have been offline while devices changed), then follow events.
    await this.reconcile();
    await this.followEvents();
    this.followConnection();
    this.every(config.RECONCILE_SECONDS, () => this.reconcile());
    this.every(config.NODE_REPORT_SECONDS, () => this.report());
    this.every(config.SAMPLE_SECONDS, () => this.reportPeers());
    const watch = new HandshakeWatch(
      () => this.host.latestHandshakes(),
      (peers) => this.publish(handshakesChanged, { observedAt: new Date().toISOString(), peers }),
    );
    this.every(config.HANDSHAKE_WATCH_SECONDS, async () => void (await watch.tick()));
    const readHost = hostMetricsReader();
    this.every(config.HOST_METRICS_SECONDS, async () =>
      this.publish(hostSampled, {
        sampledAt: new Date().toISOString(),
        ...(await readHost()),
        ...(await interfaceReading(this.host, this.peersSeen)),
      }),
    );
    logger.info({ node: config.NODE_NAME }, 'node agent running');
  }

  async stop(): Promise<void> {
    this.stopped = true;
    for (const timer of this.timers.splice(0)) clearInterval(timer);
    // The processes the agent started (its resolver, its check server) end first: they need
    // nothing from the bus, and a bus that cannot close (a retired node's refused credentials)
    // would otherwise keep them running past the process's forced exit, orphaned.
    await this.resolver.stop();
    await this.tunnelCheck?.stop();
    await this.messages?.close().catch(() => undefined);
    await this.reading?.catch(() => undefined);
    await this.reconciling?.catch(() => undefined);
    await this.bus?.close();
    await this.watching?.catch(() => undefined);
  }

  /**
   * Each time the bus connection comes back (NATS restarted, the link dropped): the durable consumer
   * resumes on its own, but what changed while the node was cut off may be more than it still
   * holds, so the agent fetches the whole desired set at once instead of at the next
   * RECONCILE_SECONDS, and reports, so the node reads reachable again without waiting.
   */
  private followConnection(): void {
    const statuses = this.bus!.nc.status();
    this.watching = (async () => {
      for await (const status of statuses) {
        if (status.type !== 'reconnect' || this.stopped) continue;
        this.logger.info('bus connection back; reconciling the whole peer set');
        void this.report().catch((error: unknown) => this.logger.warn({ err: error }, 'node report failed'));
        void this.catchUp().catch((error: unknown) =>
          this.logger.warn({ err: error }, 'reconcile after reconnect failed; the periodic one will retry'),
        );
      }
    })();
  }

  /**
   * A reconcile that starts now (one under way may fail with the connection it began on), asked
   * again while provisioning is not answering yet (it reconnects too).
   */
  private async catchUp(): Promise<void> {
    await this.reconciling?.catch(() => undefined);
    if (!this.stopped) await this.untilAnswered(() => this.reconcile());
  }

  /** Provisioning may still be starting (or restarting): ask again, 0.5 s doubling to 10 s, for up to two minutes. */
  private async untilAnswered<T>(call: () => Promise<T>): Promise<T> {
    const deadline = Date.now() + 120_000;
    for (let delay = 500; ; delay = Math.min(delay * 2, 10_000)) {
      try {
        return await call();
      } catch (error) {
        const code = (error as { code?: string }).code;
        if ((code !== 'unavailable' && code !== 'timeout') || Date.now() > deadline) throw error;
        this.logger.warn({ code }, 'provisioning not answering yet; retrying');
        await new Promise((resolve) => setTimeout(resolve, delay));
      }
    }
  }

  private every(seconds: number, task: () => Promise<void>): void {
    let running = false;
    this.timers.push(
      setInterval(() => {
        if (running) return;
        running = true;
        task()
          .catch((error: unknown) => this.logger.warn({ err: error }, 'node agent task failed'))
          .finally(() => (running = false));
      }, seconds * 1000),
    );
  }

  /** The private key stays on the node (generated once, mode 0600); only its public half is registered. */
  private async configureInterface(): Promise<string> {
    const file = path.resolve(this.config.NODE_KEY_FILE);
    if (!existsSync(file)) {
      await mkdir(path.dirname(file), { recursive: true });
      await writeFile(file, `${generateKeyPair().privateKey}\n`, { mode: 0o600 });
    }
    await chmod(file, 0o600);
    const privateKey = (await readFile(file, 'utf8')).trim();
    await this.host.wg([
      'set',
      this.config.WG_INTERFACE,
      'listen-port',
      String(this.config.WG_LISTEN_PORT),
      'private-key',
      file,
    ]);
    return publicKeyFromPrivate(privateKey);
  }

  private async assignAddresses(ipv4: string, ipv4Cidr: string, ipv6: string, ipv6Cidr: string): Promise<void> {
    const iface = this.config.WG_INTERFACE;
    await this.host.ip(['address', 'replace', `${ipv4}/${ipv4Cidr.split('/')[1]}`, 'dev', iface]);
    try {
      await this.host.ip(['-6', 'address', 'replace', `${ipv6}/${ipv6Cidr.split('/')[1]}`, 'dev', iface]);
    } catch (error) {
      this.logger.warn({ err: error }, 'IPv6 address not set (IPv6 may be off on this host); IPv4 works');
    }
    await this.host.ip(['link', 'set', 'up', 'dev', iface]);
  }

  /** Tells provisioning the node is alive: the agent's version and start, the peers on the interface and the resolver's health. */
  async report(): Promise<void> {
    const [peers, resolver] = await Promise.all([
      this.host.dump().then((dump) => dump.peers.length),
      this.resolver.health(),
    ]);
    await this.rpc!.request(
      reportNodeRpc,
      {
        agent_version: this.version,
        started_at: this.startedAt.toISOString(),
        peers,
        resolver,
      },
      undefined,
      { params: { node: this.config.NODE_NAME } },
    );
  }

  /**
   * Makes the interface's peers exactly the desired set. The interface is read first; each page
   * of the desired set is applied (its adds and fixes, one set) while the next page is asked, so
   * provisioning and the interface work at the same time; what the interface holds beyond the
   * desired set is removed once the last page has come.
   */
  reconcile(): Promise<void> {
    this.reconciling ??= (async () => {
      const started = performance.now();
      this.order.forgetOld();
      try {
        const actual = new Map((await this.host.dump()).peers.map((peer) => [peer.publicKey, peer]));
        const readMs = performance.now() - started;
        // Time spent waiting for provisioning's pages and for the interface (lastReconcile).
        const waited = { ask: 0, apply: 0 };
        const waiting = async <T>(part: keyof typeof waited, work: Promise<T>): Promise<T> => {
          const since = performance.now();
          try {
            return await work;
          } finally {
            waited[part] += performance.now() - since;
          }
        };
        const desiredKeys = new Set<string>();
        let peers = 0;
        let added = 0;
        let fixed = 0;
        let applying: Promise<void> = Promise.resolve();
        let after: string | null = null;
        let pageNumber = 0;
        do {
          const limit = reconcilePageSizes[Math.min(pageNumber++, reconcilePageSizes.length - 1)]!;
          const page: {
            peers: Array<{ public_key: string; allowed_ips: string[]; preshared_key?: string | null }>;
            next: string | null;
          } = await waiting(
            'ask',
            this.rpc!.request(desiredPeersRpc, after ? { after, limit } : { limit }, undefined, {
              params: { node: this.config.NODE_NAME },
            }),
          );
          peers += page.peers.length;
          const desired = page.peers.map((p) => ({
            publicKey: p.public_key,
            allowedIps: p.allowed_ips,
            presharedKey: p.preshared_key ?? null,
          }));
          for (const [index, peer] of desired.entries()) {
            if (desiredKeys.has(peer.publicKey))
              throw new Error(
                `desired peer set has the same public key twice (entry ${peers - desired.length + index})`,
              );
            desiredKeys.add(peer.publicKey);
          }
          const held = desired.flatMap((peer) => actual.get(peer.publicKey) ?? []);
          const plan = planReconcile(desired, held);
          added += plan.add.length;
          fixed += plan.update.length;
          const changes = [...plan.add, ...plan.update].map((p) => ({
            publicKey: p.publicKey,
            allowedIps: p.allowedIps,
            presharedKey: p.presharedKey ?? null,
          }));
          // One page applying at a time, while the next is asked; a failure surfaces below.
          await waiting('apply', applying);
          applying = changes.length > 0 ? this.host.setPeers(changes) : Promise.resolve();
          applying.catch(() => undefined);
          after = page.next;
        } while (after);
        await waiting('apply', applying);
        const remove = [...actual.keys()].filter((key) => !desiredKeys.has(key));
        if (remove.length > 0)
          await waiting('apply', this.host.setPeers(remove.map((publicKey) => ({ publicKey, remove: true }))));
        const changes = added + fixed + remove.length;
        const ms = Math.round(performance.now() - started);
        this.lastReconcile = {
          peers,
          changes,
          ms,
          readMs: Math.round(readMs),
          askMs: Math.round(waited.ask),
          applyWaitMs: Math.round(waited.apply),
        };
        if (changes > 0) this.logger.info({ added, removed: remove.length, fixed, ms }, 'peers reconciled');
      } finally {
        this.reconciling = undefined;
      }
    })();
    return this.reconciling;
  }

  /** Reads the durable consumer provisioning made for this node: its own peer changes, nothing else. */
  private async followEvents(): Promise<void> {
    const bus = this.bus!;
    const consumer = await bus.js.consumers.get(
      bus.ns.stream('provisioning'),
      bus.ns.durable(nodeConsumerName(this.config.NODE_NAME)),
    );
    this.messages = await consumer.consume({ max_messages: 256 });
    this.reading = (async () => {
      for await (const msg of this.messages!) await this.applyMessage(msg);
    })();
  }

  private async applyMessage(msg: JsMsg): Promise<void> {
    const received = performance.now();
    const subject = this.bus!.ns.strip(msg.subject);
    const mine = subjectParams(nodePeerChanged.subject, subject)?.node === this.config.NODE_NAME;
    const decoded = decodeEnvelope(msg.data, nodePeerChanged);
    if (!mine || !decoded.ok) {
      this.logger.error({ subject, problems: decoded.ok ? [] : decoded.problems }, 'peer change refused');
      msg.term();
      return;
    }
    try {
      const change = decoded.envelope.data as PeerChange;
      // Provisioning's relay numbers every change; one without a number predates them all.
      const made = outboxSequenceOf(msg) ?? 0;
      const current = this.order.current(peerChanges(change), made);
      if (current.length === 0) {
        this.logger.debug({ subject }, 'peer change overtaken by a newer one; skipped');
        msg.ack();
        return;
      }
      const changes = await withPresharedKey(this.rpc!, this.config.NODE_NAME, change, current);
      const keyed = performance.now();
      await this.host.setPeers(changes);
      this.order.applied(changes, made);
      const applied = performance.now();
      // Times only: keys and addresses stay out of the logs.
      this.logger.debug(
        { peers: changes.length, ms: Math.round((applied - received) * 10) / 10 },
        'peer change applied',
      );
      this.onPeersApplied?.(
        changes.map((change) => change.publicKey),
        applied,
        { stored: msg.info.timestampNanos / 1e6, received, keyed },
      );
      msg.ack();
    } catch (error) {
      this.logger.warn({ err: error, subject }, 'peer change failed; will retry');
      msg.nak(1000);
    }
  }

  /**
   * Counters and handshakes of every peer; endpoints leave the node masked (IPv4 /24, IPv6 /48).
   * Connected peers (up to LATENCY_PROBES, in turn) are pinged through the tunnel at the same
   * moment: the round trip is their latency, null when unanswered or not probed this round.
   */
  async reportPeers(): Promise<void> {
    const sampledAt = new Date();
    const dump = await this.host.dump();
    this.peersSeen = dump.peers.length;
    const { targets, nextOffset } = probeTargets(
      dump.peers,
      Math.floor(sampledAt.getTime() / 1000),
      this.config.LATENCY_PROBES,
      this.probeOffset,
    );
    this.probeOffset = nextOffset;
    const latency = await probeAll(targets, (address) => this.host.ping(address));
    const peers = dump.peers.map((peer) => ({
      publicKey: peer.publicKey,
      latestHandshake: peer.latestHandshake,
      rxBytes: peer.transferRx,
      txBytes: peer.transferTx,
      maskedEndpoint: peer.endpoint ? maskEndpoint(peer.endpoint) : null,
      latencyMs: latency.get(peer.publicKey) ?? null,
    }));
    for (const page of samplePages(peers))
      await this.publish(peersSampled, { sampledAt: sampledAt.toISOString(), peers: page });
  }

  /** On this node's own subject: the only one its credentials may publish samples on. */
  private async publish<S extends TSchema>(contract: EventContract<S>, data: Static<S>): Promise<void> {
    const envelope = createEnvelope(contract, data);
    const subject = this.bus!.ns.subject(fillSubject(contract.subject, { node: this.config.NODE_NAME }));
    await this.bus!.js.publish(subject, JSON.stringify(envelope), { msgID: envelope.id });
  }
}

type PeerChange = Static<typeof nodePeerChanged.schema>;

/**
 * Where an applied change's time went: `stored` is when JetStream stored the event (epoch ms),
 * `received` when the agent had it and `keyed` when its preshared key (if any) had been fetched
 * (`performance.now()`, as the moment it was applied).
 */
export type AppliedSteps = { stored: number; received: number; keyed: number };

/** What a peer change (already checked against its contract) asks of the interface. */
export function peerChanges(change: PeerChange): WgPeerChange[] {
  if (change.change === 'remove') return [{ publicKey: change.publicKey, remove: true }];
  const changes: WgPeerChange[] = [];
  if (change.replaces && change.replaces !== change.publicKey)
    changes.push({ publicKey: change.replaces, remove: true });
  changes.push({ publicKey: change.publicKey, allowedIps: change.allowedIps });
  return changes;
}
