import path from 'node:path';
import { registerNodeRpc } from '@qw/contracts';
import { createLogger, loadConfig } from '@qw/platform';
import type { WireGuardLab } from '@qw/testkit';
import { generateKeyPair } from '@qw/wireguard';
import { NodeAgent } from '../../../node-agent/src/agent.ts';
import { NodeAgentConfigSchema } from '../../../node-agent/src/config.ts';
import type { Stack } from './stack.ts';

/** A registered node without an agent (devices get placed on it), asking as itself. */
export async function registerTestNode(stack: Stack, name: string, tags: string[] = []) {
  const { rpc } = await stack.connectNode(name);
  return rpc.request(
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
}

/**
 * A node agent on the WireGuard lab's node interface, joined to the stack's bus as `name`, sampling
 * every second and reconciling every two; `settings` adds or overrides its environment (its
 * address, SSH user or port).
 */
export async function startLabAgent(
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
    HOST_METRICS_SECONDS: '1',
    ...settings,
  });
  const agent = new NodeAgent(config, logger);
  await agent.start();
  return agent;
}
