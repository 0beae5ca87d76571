import { describe, expect, it } from 'vitest';
import { normaliseRegion, regionIds } from '@qw/contracts';
import { loadConfig } from '@qw/platform/config';
import { nodeSubnets } from '@qw/wireguard';
import { NodeAgentConfigSchema } from '../../services/node-agent/src/config.ts';
import { devFleetPlan, devNodeAgentEnv, nodeTunnelTarget } from '../dev-fleet-plan.ts';

const plan = devFleetPlan();
const members = [...plan.nodes, ...plan.clients];

describe("make dev's fleet plan", () => {
  it('runs one node per region, the Asian one (and only it) tagged gaming, each with its city and capacity', () => {
    expect(plan.nodes.map((n) => n.region).sort()).toEqual([...regionIds].sort());
    expect(plan.nodes.map((n) => [n.name, n.city, n.tags])).toEqual([
      ['nyc-1', 'New York', []],
      ['fra-1', 'Frankfurt', []],
      ['sgp-1', 'Singapore', ['gaming']],
    ]);
    for (const node of plan.nodes) expect(node.capacity).toBeGreaterThan(0);
    expect(plan.nodes.find((n) => n.tags.includes('gaming'))?.region).toBe('asia');
    // The demo clients connect through two different regions' nodes.
    expect(new Set(plan.clients.map((c) => c.region)).size).toBe(plan.clients.length);
  });

  it('gives every node and client its own namespace, veth, underlay address and WireGuard interface', () => {
    const distinct = (values: string[]) => expect(new Set(values).size).toBe(values.length);
    distinct(members.map((m) => m.namespace));
    distinct(members.map((m) => m.hostVeth));
    distinct(members.map((m) => m.underlay));
    // wireguard-go's control socket is /var/run/wireguard/<iface>.sock for every namespace alike.
    distinct(members.map((m) => m.iface));
    distinct(plan.nodes.map((n) => n.keyFile));
    distinct(plan.nodes.map((n) => n.endpoint));
    // Linux names of links are at most 15 bytes.
    for (const name of [plan.bridge, ...members.flatMap((m) => [m.hostVeth, m.innerVeth, m.iface])])
      expect(name.length, name).toBeLessThanOrEqual(15);
  });

  it('puts every underlay address on the bridge subnet beside the host, and the endpoint on it', () => {
    const subnetOf = (address: string) => address.split('.').slice(0, 3).join('.');
    for (const member of members) {
      expect(subnetOf(member.underlay)).toBe(subnetOf(plan.hostAddress));
      expect(member.underlay).not.toBe(plan.hostAddress);
      expect(member.underlay).toMatch(/^10\.\d+\.\d+\.\d+$/);
      // Never inside the tunnels' 10.64.0.0/10.
      expect(Number(member.underlay.split('.')[1])).not.toSatisfy((n: number) => n >= 64 && n < 128);
    }
    for (const node of plan.nodes) expect(node.endpoint).toBe(`${node.underlay}:${node.listenPort}`);
    expect(plan.prefixLength).toBe(24);
  });

  it('hands each agent an environment its configuration accepts, with the region it stands for and ip/wg run in its namespace', () => {
    for (const node of plan.nodes) {
      const config = loadConfig(NodeAgentConfigSchema, { ...devNodeAgentEnv(node), NATS_URL: 'nats://127.0.0.1:4223' });
      expect(config).toMatchObject({
        NODE_NAME: node.name,
        NODE_CITY: node.city,
        NODE_CAPACITY: node.capacity,
        NODE_IP: node.underlay,
        WG_INTERFACE: node.iface,
        WG_ENDPOINT: node.endpoint,
        WG_COMMAND_PREFIX: `ip netns exec ${node.namespace}`,
        NODE_RESOLVER: '/usr/sbin/unbound',
      });
      expect(normaliseRegion(config.NODE_REGION)).toBe(node.region);
      expect(config.NODE_TAGS).toBe(node.tags.join(','));
    }
    const resolverDirs = plan.nodes.map((node) => devNodeAgentEnv(node).NODE_RESOLVER_DIR);
    expect(new Set(resolverDirs).size).toBe(plan.nodes.length);
  });

  it("has a demo client ping its node's own tunnel address through a route to that node's subnet only", () => {
    for (const index of [0, 1, 2, 63]) {
      const subnets = nodeSubnets(index);
      const device = subnets.ipv4Cidr.replace(/\.0\.0\/16$/, '.3.7');
      expect(nodeTunnelTarget(device)).toEqual({ address: subnets.nodeIpv4, route: subnets.ipv4Cidr });
      expect(nodeTunnelTarget(`${device}/32`).address).toBe(subnets.nodeIpv4);
    }
    expect(() => nodeTunnelTarget('192.168.1.2/32')).toThrow(/not a device address/);
    expect(() => nodeTunnelTarget('10.128.0.2')).toThrow(/not a device address/);
  });
});
