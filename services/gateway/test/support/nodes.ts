import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { registerNodeRpc } from '@qw/contracts';
import { createLogger, loadConfig } from '@qw/platform';
import { createWireGuardLab, keepReporting, type WireGuardLab } from '@qw/testkit';
import { generateKeyPair, parseClientConfig, toWgSetconf } from '@qw/wireguard';
import { NodeAgent } from '../../../node-agent/src/agent.ts';
import { NodeAgentConfigSchema } from '../../../node-agent/src/config.ts';
import type { Stack } from './stack.ts';

type Logger = ReturnType<typeof createLogger>;

/**
 * The node's own address inside the tunnel, and the route the lab's client sends through it: the
 * first host of the node's /16 and the /16 itself (10.64.0.0/16 for the first node, 10.65.0.0/16
 * for the second, as the registry hands them out), read from the device address of the config.
 */
function tunnelOf(deviceIpv4: string): { node: string; route: string } {
  const [a, b] = deviceIpv4.split('.');
  return { node: `${a}.${b}.0.1`, route: `${a}.${b}.0.0/16` };
}

/**
 * A registered node without an agent (devices get placed on it), asking as itself; it keeps
 * reporting every 5 s until the stack stops, so it stays reachable (and placeable) however long
 * the test runs.
 */
export async function registerTestNode(stack: Stack, name: string, tags: string[] = []) {
  const node = await stack.connectNode(name);
  const addressing = await node.rpc.request(
    registerNodeRpc,
    {
      region: 'eu-central',
      endpoint: '198.51.100.1:51820',
      public_key: generateKeyPair().publicKey,
      ip: '198.51.100.1',
      tags,
    },
    undefined,
    { params: { node: name } },
  );
  keepReporting(node.bus, name);
  return addressing;
}

/**
 * A node agent on the WireGuard lab's node interface, joined to the stack's bus as `name`, sampling
 * and reporting every second and reconciling every two, without its resolver; `settings` adds or
 * overrides its environment (its address, SSH user or port, NODE_RESOLVER).
 */
async function startLabAgent(
  stack: Stack,
  lab: WireGuardLab,
  keyDir: string,
  name: string,
  settings: Record<string, string> = {},
  logger = createLogger({ service: 'node-agent', level: process.env.TEST_LOG_LEVEL ?? 'silent' }),
): Promise<NodeAgent> {
  const config = loadConfig(NodeAgentConfigSchema, {
    ...(await stack.testBus.addNode(name)),
    LOG_LEVEL: 'silent',
    NODE_NAME: name,
    NODE_REGION: 'eu-central',
    WG_INTERFACE: lab.nodeIface,
    WG_ENDPOINT: `${lab.nodeUnderlay}:51820`,
    WG_LISTEN_PORT: '51820',
    WG_COMMAND_PREFIX: lab.prefix,
    NODE_KEY_FILE: path.join(keyDir, 'node.key'),
    RECONCILE_SECONDS: '2',
    SAMPLE_SECONDS: '1',
    NODE_REPORT_SECONDS: '1',
    HOST_METRICS_SECONDS: '1',
    // The node's resolver has its own test (node-resolver-tunnel.test.ts); a test wanting it passes NODE_RESOLVER.
    NODE_RESOLVER: 'off',
    // The "Am I protected?" server is a process of its own: only the tests of it start one.
    TUNNEL_CHECK_PORT: '0',
    ...settings,
  });
  const agent = new NodeAgent(config, logger);
  await agent.start();
  return agent;
}

/**
 * A WireGuard lab with one node agent on it, for the tunnel tests: the lab, the agent's key folder
 * and the agent are made together and taken down together by `stop()`, whatever of them exists.
 */
export class LabNode {
  private running: NodeAgent | null = null;
  /** The node's tunnel address the client pings: the first node's until a config says otherwise. */
  private tunnelNode = '10.64.0.1';

  private constructor(
    private stack: Stack,
    readonly lab: WireGuardLab,
    private readonly keyDir: string,
    private readonly name: string,
    private settings: Record<string, string>,
    private readonly logger: Logger | undefined,
  ) {}

  /** A new lab with an agent joined to the stack's bus as `name` (see `startLabAgent`). */
  static async start(stack: Stack, name: string, settings: Record<string, string> = {}, logger?: Logger) {
    const lab = await createWireGuardLab();
    const keyDir = await mkdtemp(path.join(tmpdir(), 'qw-agent-')).catch(async (error) => {
      await lab.destroy();
      throw error;
    });
    const node = new LabNode(stack, lab, keyDir, name, settings, logger);
    try {
      await node.startAgent();
    } catch (error) {
      await node.stop();
      throw error;
    }
    return node;
  }

  /** Where the agent keeps the node's private key. */
  get keyFile(): string {
    return path.join(this.keyDir, 'node.key');
  }

  get agent(): NodeAgent {
    if (!this.running) throw new Error(`the agent of ${this.name} is not running`);
    return this.running;
  }

  /** Starts the agent (again, after `stopAgent`), with the node key it had. */
  async startAgent(): Promise<NodeAgent> {
    this.running = await startLabAgent(this.stack, this.lab, this.keyDir, this.name, this.settings, this.logger);
    return this.running;
  }

  /** Stops the agent and starts it again with `changes` over its settings (same key, lab and stack). */
  async restartAgent(changes: Record<string, string>): Promise<NodeAgent> {
    await this.stopAgent();
    this.settings = { ...this.settings, ...changes };
    return this.startAgent();
  }

  /** Stops the agent and starts it again joined to `stack`, with the node key and lab it had. */
  async moveTo(stack: Stack): Promise<NodeAgent> {
    await this.stopAgent();
    this.stack = stack;
    return this.startAgent();
  }

  async stopAgent(): Promise<void> {
    const agent = this.running;
    this.running = null;
    await agent?.stop();
  }

  /** The public keys of the peers on the node's interface now. */
  async peers(): Promise<string[]> {
    return (await this.agent.host.dump()).peers.map((p) => p.publicKey);
  }

  /** Brings the lab's client up with a device's config file (replacing the one it had). */
  async connect(config: string): Promise<void> {
    const ipv4 = parseClientConfig(config).addresses.find((a) => !a.includes(':'));
    if (!ipv4) throw new Error('the config has no IPv4 address');
    const tunnel = tunnelOf(ipv4.split('/')[0]!);
    this.tunnelNode = tunnel.node;
    await this.lab.connectClient(toWgSetconf(config), ipv4, tunnel.route);
  }

  /** Whether the lab's client reaches the node's tunnel address now (one ping). */
  ping(timeoutSeconds?: number): Promise<boolean> {
    return this.lab.ping(this.tunnelNode, timeoutSeconds);
  }

  async stop(): Promise<void> {
    await this.stopAgent();
    await this.lab.destroy();
    await rm(this.keyDir, { recursive: true, force: true });
  }
}
