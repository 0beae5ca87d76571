import { existsSync } from 'node:fs';
import { chmod, mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { AckPolicy, DeliverPolicy, type ConsumerMessages, type JsMsg } from '@nats-io/jetstream';
import type { Logger } from 'pino';
import {
  desiredPeersRpc, hostSampled, nodeEvents, peersSampled, provisioningEvents, registerNodeRpc, type EventContract,
} from '@qw/contracts';
import { RpcClient, connectBus, createEnvelope, decodeEnvelope, ensureStream, type BusConnection } from '@qw/platform/bus';
import { generateKeyPair, maskEndpoint, planReconcile, publicKeyFromPrivate, type PeerChange } from '@qw/wireguard';
import type { NodeAgentConfig } from './config.ts';
import { hostMetricsReader } from './host-metrics.ts';
import { WgHost } from './wg-host.ts';

type PeerEvent = { nodeId: string; publicKey?: string | null; previousPublicKey?: string | null; allowedIps?: string[]; isActive?: boolean };

/**
 * One per WireGuard server: registers the node, applies each provisioning event to the interface
 * as it arrives, reconciles the whole desired peer set at start and every minute (adds, removes
 * and fixes what drifted), and reports peer samples and host metrics.
 */
export class NodeAgent {
  private bus: BusConnection | undefined;
  private rpc: RpcClient | undefined;
  private messages: ConsumerMessages | undefined;
  private reading: Promise<void> | undefined;
  private timers: NodeJS.Timeout[] = [];
  private reconciling: Promise<void> | undefined;
  readonly host: WgHost;
  nodeId: string | undefined;

  constructor(private readonly config: NodeAgentConfig, private readonly logger: Logger) {
    this.host = new WgHost(config.WG_INTERFACE, config.WG_COMMAND_PREFIX);
  }

  async start(): Promise<void> {
    const { config, logger } = this;
    this.bus = await connectBus({ url: config.NATS_URL, name: `node-agent-${config.NODE_NAME}`, namespace: config.BUS_NAMESPACE, logger });
    this.rpc = new RpcClient(this.bus, 10_000);
    await ensureStream(this.bus, 'node', nodeEvents);
    const publicKey = await this.configureInterface();
    const addressing = await this.untilAnswered(() => this.rpc!.request(registerNodeRpc, {
      name: config.NODE_NAME, region: config.NODE_REGION, endpoint: config.WG_ENDPOINT, public_key: publicKey, ip: config.NODE_IP,
      ...(config.NODE_SSH_USER ? { ssh_user: config.NODE_SSH_USER } : {}), ...(config.NODE_SSH_PORT ? { ssh_port: config.NODE_SSH_PORT } : {}),
      tags: config.NODE_TAGS.split(',').map((t) => t.trim()).filter(Boolean),
    }));
    this.nodeId = addressing.node_id;
    await this.assignAddresses(addressing.node_ipv4, addressing.ipv4_cidr, addressing.node_ipv6, addressing.ipv6_cidr);
    // Catch up first (the agent may have been offline while devices changed), then follow events.
    await this.reconcile();
    await this.followEvents();
    this.every(config.RECONCILE_SECONDS, () => this.reconcile());
    this.every(config.SAMPLE_SECONDS, () => this.reportPeers());
    const readHost = hostMetricsReader();
    this.every(config.HOST_METRICS_SECONDS, async () => this.publish(hostSampled, { nodeId: this.nodeId!, sampledAt: new Date().toISOString(), ...(await readHost()) }));
    logger.info({ node: config.NODE_NAME }, 'node agent running');
  }

  async stop(): Promise<void> {
    for (const timer of this.timers.splice(0)) clearInterval(timer);
    await this.messages?.close().catch(() => undefined);
    await this.reading?.catch(() => undefined);
    await this.reconciling?.catch(() => undefined);
    await this.bus?.close();
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
    this.timers.push(setInterval(() => {
      if (running) return;
      running = true;
      task().catch((error: unknown) => this.logger.warn({ err: error }, 'node agent task failed')).finally(() => (running = false));
    }, seconds * 1000));
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
    await this.host.wg(['set', this.config.WG_INTERFACE, 'listen-port', String(this.config.WG_LISTEN_PORT), 'private-key', file]);
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

  /** Makes the interface's peers exactly the desired set. */
  reconcile(): Promise<void> {
    this.reconciling ??= (async () => {
      try {
        const peers: Array<{ public_key: string; allowed_ips: string[] }> = [];
        let after: string | null = null;
        do {
          const page: { peers: typeof peers; next: string | null } = await this.rpc!.request(desiredPeersRpc, { node_id: this.nodeId!, ...(after ? { after } : {}) });
          peers.push(...page.peers);
          after = page.next;
        } while (after);
        const plan = planReconcile(peers.map((p) => ({ publicKey: p.public_key, allowedIps: p.allowed_ips })), (await this.host.dump()).peers);
        const changes = [
          ...plan.remove.map((publicKey) => ({ publicKey, remove: true })),
          ...[...plan.add, ...plan.update].map((p) => ({ publicKey: p.publicKey, allowedIps: p.allowedIps })),
        ];
        if (changes.length > 0) {
          await this.host.setPeers(changes);
          this.logger.info({ added: plan.add.length, removed: plan.remove.length, fixed: plan.update.length }, 'peers reconciled');
        }
      } finally {
        this.reconciling = undefined;
      }
    })();
    return this.reconciling;
  }

  private async followEvents(): Promise<void> {
    const bus = this.bus!;
    const stream = await ensureStream(bus, 'provisioning', provisioningEvents);
    const durable = bus.ns.durable(`node-agent-${this.nodeId}`);
    try {
      await bus.jsm.consumers.info(stream, durable);
    } catch {
      await bus.jsm.consumers.add(stream, {
        durable_name: durable, filter_subject: bus.ns.subject('provisioning.>'), ack_policy: AckPolicy.Explicit,
        deliver_policy: DeliverPolicy.New, ack_wait: 30_000_000_000, max_ack_pending: 256,
      });
    }
    const consumer = await bus.js.consumers.get(stream, durable);
    this.messages = await consumer.consume({ max_messages: 256 });
    const contracts = new Map<string, EventContract>(provisioningEvents.map((c) => [c.subject, c as EventContract]));
    this.reading = (async () => {
      for await (const msg of this.messages!) await this.applyMessage(msg, contracts);
    })();
  }

  private async applyMessage(msg: JsMsg, contracts: Map<string, EventContract>): Promise<void> {
    const subject = this.bus!.ns.strip(msg.subject);
    const decoded = decodeEnvelope(msg.data, contracts.get(subject));
    if (!decoded.ok) {
      this.logger.error({ subject, problems: decoded.problems }, 'provisioning event refused');
      msg.term();
      return;
    }
    const data = decoded.envelope.data as PeerEvent;
    if (data.nodeId !== this.nodeId) {
      msg.ack();
      return;
    }
    try {
      await this.applyEvent(subject, data);
      msg.ack();
    } catch (error) {
      this.logger.warn({ err: error, subject }, 'peer change failed; will retry');
      msg.nak(1000);
    }
  }

  private async applyEvent(subject: string, data: PeerEvent): Promise<void> {
    switch (subject) {
      case 'provisioning.device.created':
        if (data.isActive && data.publicKey) await this.host.setPeers([{ publicKey: data.publicKey, allowedIps: data.allowedIps! }]);
        return;
      case 'provisioning.device.activated':
        await this.host.setPeers([{ publicKey: data.publicKey!, allowedIps: data.allowedIps! }]);
        return;
      case 'provisioning.device.suspended':
      case 'provisioning.device.removed':
      case 'provisioning.keys.revoked':
        if (data.publicKey) await this.host.setPeers([{ publicKey: data.publicKey, remove: true }]);
        return;
      case 'provisioning.key.rotated': {
        const changes: PeerChange[] = [];
        if (data.previousPublicKey && data.previousPublicKey !== data.publicKey) changes.push({ publicKey: data.previousPublicKey, remove: true });
        if (data.isActive && data.publicKey) changes.push({ publicKey: data.publicKey, allowedIps: data.allowedIps! });
        await this.host.setPeers(changes);
        return;
      }
      default:
    }
  }

  /** Counters and handshakes of every peer; endpoints leave the node masked (IPv4 /24, IPv6 /48). */
  async reportPeers(): Promise<void> {
    const dump = await this.host.dump();
    await this.publish(peersSampled, {
      nodeId: this.nodeId!,
      sampledAt: new Date().toISOString(),
      peers: dump.peers.map((peer) => ({
        publicKey: peer.publicKey, latestHandshake: peer.latestHandshake, rxBytes: peer.transferRx, txBytes: peer.transferTx,
        maskedEndpoint: peer.endpoint ? maskEndpoint(peer.endpoint) : null,
      })),
    });
  }

  private async publish<T extends EventContract>(contract: T, data: unknown): Promise<void> {
    const envelope = createEnvelope(contract, data as never);
    await this.bus!.js.publish(this.bus!.ns.subject(contract.subject), JSON.stringify(envelope), { msgID: envelope.id });
  }
}
