/**
 * The fleet `make dev` runs (issue #23), as data: three WireGuard nodes, one per region, each in
 * its own network namespace, and two demo clients in namespaces of their own. Every namespace
 * hangs on one bridge of this machine by a veth pair, so the host reaches each node's underlay
 * address and the clients reach the nodes without routing. Each node also has an uplink to a second
 * bridge, "the world": a namespace of its own standing in for the internet (never the real one),
 * which a demo client reaches only through its tunnel, NATed out of its node's uplink by the agent.
 * scripts/dev-fleet.ts makes what this plan says; nothing here touches the machine.
 */
import type { RegionId } from '@qw/contracts';

export type DevFleetNode = {
  /** The node's name in the product (and its bus user, node-<name>). */
  name: string;
  region: RegionId;
  city: string;
  tags: string[];
  capacity: number;
  namespace: string;
  /** The veth end on the bridge (host side) and the one inside the namespace. */
  hostVeth: string;
  innerVeth: string;
  /** Its address on the bridge's subnet: what the host and the demo clients reach it at. */
  underlay: string;
  /**
   * The WireGuard interface inside the namespace. Named apart from every other: wireguard-go's
   * control socket (/var/run/wireguard/<iface>.sock) is one file system for all namespaces.
   */
  iface: string;
  listenPort: number;
  endpoint: string;
  keyFile: string;
  /** Its uplink towards "the world": the veth end on the world bridge, the one inside, its address there. */
  uplinkHostVeth: string;
  uplinkVeth: string;
  uplink: string;
};

export type DevFleetClient = {
  name: string;
  namespace: string;
  hostVeth: string;
  innerVeth: string;
  underlay: string;
  iface: string;
  /** The demo admin's device the client's config belongs to, and the region it chooses. */
  device: string;
  region: RegionId;
};

export type DevFleetPlan = {
  bridge: string;
  /** The host's own address on the bridge, with the subnet's prefix length. */
  hostAddress: string;
  prefixLength: number;
  nodes: DevFleetNode[];
  clients: DevFleetClient[];
  /** The stand-in internet: a bridge only the nodes' uplinks and its namespace are on (the host has no address there). */
  world: { bridge: string; namespace: string; hostVeth: string; innerVeth: string; address: string; subnet: string };
};

/**
 * The names and subnet `make dev` uses. A test of the network takes others (random), so it never
 * touches a running `make dev`'s fleet. The subnet is a private /24 nothing else here uses (the
 * tests' labs take 10.231.x.0/24, tunnels 10.64.0.0/10).
 */
export type DevFleetNames = { prefix: string; wgPrefix: string; subnet: string; worldSubnet: string };
export const devFleetNames: DevFleetNames = {
  prefix: 'qwdev',
  wgPrefix: 'wg',
  subnet: '10.213.0',
  worldSubnet: '10.214.0',
};
const listenPort = 51820;

const nodes: Array<Pick<DevFleetNode, 'name' | 'region' | 'city' | 'tags' | 'capacity'> & { short: string }> = [
  { name: 'nyc-1', short: 'nyc', region: 'north-america', city: 'New York', tags: [], capacity: 500 },
  { name: 'fra-1', short: 'fra', region: 'europe', city: 'Frankfurt', tags: [], capacity: 800 },
  { name: 'sgp-1', short: 'sgp', region: 'asia', city: 'Singapore', tags: ['gaming'], capacity: 300 },
];

const clients: Array<Pick<DevFleetClient, 'name' | 'device' | 'region'>> = [
  { name: 'laptop', device: 'Demo laptop', region: 'europe' },
  { name: 'phone', device: 'Demo phone', region: 'asia' },
];

/** What `make dev` builds; the same every time, so a second run finds (and replaces) the first run's. */
export function devFleetPlan(names: DevFleetNames = devFleetNames): DevFleetPlan {
  const { prefix, wgPrefix, subnet, worldSubnet } = names;
  return {
    bridge: `${prefix}0`,
    world: {
      bridge: `${prefix}1`,
      namespace: `${prefix}-net`,
      hostVeth: `${prefix}-net`,
      innerVeth: 'eth0',
      address: `${worldSubnet}.2`,
      subnet: `${worldSubnet}.0/24`,
    },
    hostAddress: `${subnet}.1`,
    prefixLength: 24,
    nodes: nodes.map(({ short, ...node }, i) => {
      const underlay = `${subnet}.${11 + i}`;
      return {
        ...node,
        namespace: `${prefix}-${short}`,
        hostVeth: `${prefix}-${short}`,
        innerVeth: 'eth0',
        underlay,
        iface: `${wgPrefix}-${short}`,
        listenPort,
        endpoint: `${underlay}:${listenPort}`,
        keyFile: `var/dev-fleet/${node.name}.key`,
        uplinkHostVeth: `${prefix}u${short}`,
        uplinkVeth: 'eth1',
        uplink: `${worldSubnet}.${11 + i}`,
      };
    }),
    clients: clients.map((client, i) => ({
      ...client,
      namespace: `${prefix}-${client.name}`,
      hostVeth: `${prefix}-${client.name}`,
      innerVeth: 'eth0',
      underlay: `${subnet}.${21 + i}`,
      iface: `${wgPrefix}-${client.name}`,
    })),
  };
}

/** The node agent's environment for one node of the plan (bus settings come from `make dev`). */
export function devNodeAgentEnv(node: DevFleetNode): Record<string, string> {
  return {
    NODE_NAME: node.name,
    NODE_REGION: node.region,
    NODE_CITY: node.city,
    NODE_CAPACITY: String(node.capacity),
    NODE_TAGS: node.tags.join(','),
    NODE_IP: node.underlay,
    // Its devices' traffic leaves by its uplink to "the world", NATed by the agent (NODE_FORWARDING on).
    NODE_EGRESS: node.uplink,
    NODE_EGRESS_INTERFACE: node.uplinkVeth,
    NODE_SSH_USER: 'root',
    WG_INTERFACE: node.iface,
    WG_ENDPOINT: node.endpoint,
    WG_LISTEN_PORT: String(node.listenPort),
    WG_COMMAND_PREFIX: `ip netns exec ${node.namespace}`,
    NODE_KEY_FILE: node.keyFile,
    // Each node's own resolver (unbound, in its namespace) keeps its config apart from the others'.
    NODE_RESOLVER_DIR: node.keyFile.replace(/\.key$/, '-resolver'),
  };
}

/**
 * The node's own address inside the tunnel and its subnet, from a device's IPv4 address there
 * (node n owns 10.(64+n).0.0/16 and is its .1; see libs/wireguard addresses.ts): what a demo
 * client pings and routes through its interface.
 */
export function nodeTunnelTarget(deviceIpv4: string): { address: string; route: string } {
  const match = /^10\.(\d+)\.\d+\.\d+(\/\d+)?$/.exec(deviceIpv4);
  const second = Number(match?.[1]);
  if (!match || second < 64 || second > 127) throw new Error(`${deviceIpv4} is not a device address of a node`);
  return { address: `10.${second}.0.1`, route: `10.${second}.0.0/16` };
}
