import { Type, type Static } from 'typebox';
import { commonEnv } from '@qw/platform/config';
import { canonicalAddress } from '@qw/wireguard';

export const NodeAgentConfigSchema = Type.Object({
  ...commonEnv,
  NODE_NAME: Type.String({ minLength: 1, maxLength: 64, pattern: '^[a-z0-9][a-z0-9-]*$' }),
  NODE_REGION: Type.String({ default: 'eu-central', minLength: 1 }),
  NODE_TAGS: Type.String({ default: '', description: 'comma-separated, e.g. gaming' }),
  NODE_CITY: Type.Optional(
    Type.String({ minLength: 1, maxLength: 64, description: 'where the server is, e.g. Frankfurt' }),
  ),
  NODE_CAPACITY: Type.Optional(Type.Integer({ minimum: 1, maximum: 1_000_000, description: 'peers it takes' })),
  NODE_IP: Type.String({ minLength: 1, description: 'public address of the server (console, SSH command)' }),
  NODE_EGRESS: Type.Optional(
    Type.String({
      minLength: 2,
      pattern: '^[0-9a-fA-F.:]+(,[0-9a-fA-F.:]+)*$',
      description:
        'comma-separated public addresses the tunnel traffic leaves from (the "Am I protected?" check over HTTPS); default: NODE_IP when it is an address',
    }),
  ),
  NODE_SSH_USER: Type.Optional(Type.String()),
  NODE_SSH_PORT: Type.Optional(Type.Integer({ minimum: 1, maximum: 65535 })),
  WG_INTERFACE: Type.String({ default: 'wg0', pattern: '^[A-Za-z0-9_=+.-]{1,15}$' }),
  WG_ENDPOINT: Type.String({ minLength: 3, description: 'host:port devices connect to' }),
  WG_LISTEN_PORT: Type.Integer({ minimum: 1, maximum: 65535, default: 51820 }),
  WG_COMMAND_PREFIX: Type.String({
    default: '',
    description: 'runs wg and ip through this, e.g. "ip netns exec qw-node"',
  }),
  NODE_FORWARDING: Type.Union([Type.Literal('on'), Type.Literal('off')], {
    default: 'on',
    description:
      "on: the agent turns on IPv4/IPv6 forwarding and installs NAT and client isolation for the tunnel (iptables/ip6tables); off: the operator's firewall does it",
  }),
  NODE_EGRESS_INTERFACE: Type.Optional(
    Type.String({
      pattern: '^[A-Za-z0-9_=+.-]{1,15}$',
      description: 'the interface tunnel traffic is NATed out of; default: every interface but the tunnel',
    }),
  ),
  WG_CONTROL: Type.Union([Type.Literal('auto'), Type.Literal('uapi'), Type.Literal('wg')], {
    default: 'auto',
    description:
      "peer changes and readings: auto (wireguard-go's UAPI socket when /var/run/wireguard/<iface>.sock exists, else wg), uapi or wg",
  }),
  NODE_KEY_FILE: Type.String({
    default: 'var/node.key',
    description: "the node's WireGuard private key; generated when missing",
  }),
  RECONCILE_SECONDS: Type.Number({ minimum: 1, default: 60 }),
  SAMPLE_SECONDS: Type.Number({ minimum: 1, default: 10 }),
  HANDSHAKE_WATCH_SECONDS: Type.Number({
    minimum: 0.25,
    maximum: 60,
    default: 1,
    description: 'how often the latest handshakes are read; only peers that have just connected are sent',
  }),
  NODE_REPORT_SECONDS: Type.Number({
    minimum: 1,
    maximum: 20,
    default: 10,
    description: 'how often the node reports to provisioning; one silent for 30 s is unreachable',
  }),
  AGENT_VERSION: Type.Optional(
    Type.String({ minLength: 1, maxLength: 64, description: "what the node reports as its agent's version" }),
  ),
  TUNNEL_CHECK_PORT: Type.Integer({
    minimum: 0,
    maximum: 65535,
    default: 80,
    description: '"Am I protected?": HTTP port on the tunnel-only check addresses (100.64.0.254); 0 turns it off',
  }),
  TUNNEL_CHECK_ORIGINS: Type.String({
    default: '',
    description: 'comma-separated origins whose pages may read the check (the site, e.g. https://quietwire.net)',
  }),
  HOST_METRICS_SECONDS: Type.Number({ minimum: 1, default: 15 }),
  NODE_RESOLVER: Type.String({
    default: '/usr/sbin/unbound',
    minLength: 1,
    description: "the node's own resolver: the unbound binary, or off (devices' DNS then goes unanswered)",
  }),
  NODE_RESOLVER_UPSTREAM: Type.String({
    default: '',
    description: 'comma-separated resolvers to forward to (address or address@port); empty: full recursion',
  }),
  NODE_RESOLVER_DIR: Type.String({
    default: 'var/resolver',
    description: "where the agent writes unbound's config and blocklist zones (nothing else is written there)",
  }),
  NODE_RESOLVER_BLOCKLISTS: Type.Optional(
    Type.String({ minLength: 1, description: 'folder of <category>.txt lists; default: data/blocklists' }),
  ),
  LATENCY_PROBES: Type.Integer({
    minimum: 0,
    maximum: 4096,
    default: 128,
    description: 'connected peers pinged through the tunnel per sample (round-robin); 0 turns probing off',
  }),
});
export type NodeAgentConfig = Static<typeof NodeAgentConfigSchema>;

/**
 * The public addresses the node's tunnel traffic leaves from (issue #25): NODE_EGRESS, or NODE_IP
 * when that is an address (a node that NATs its peers out of its one public address); none when
 * neither says (the connection check then never names this node).
 */
export function egressOf(config: Pick<NodeAgentConfig, 'NODE_EGRESS' | 'NODE_IP'>): string[] {
  if (config.NODE_EGRESS !== undefined) {
    return config.NODE_EGRESS.split(',').map((text) => {
      const address = canonicalAddress(text);
      if (address === null) throw new Error(`NODE_EGRESS: ${JSON.stringify(text)} is not an IP address`);
      return address;
    });
  }
  const own = canonicalAddress(config.NODE_IP);
  return own === null ? [] : [own];
}
