import { isNodeReachable, loadLevel, regions, type NodeStatus, type PublicRegion, type RegionId } from '@qw/contracts';

/** What the public list reads of a node: never its name, address or endpoint, only where it is and how it does. */
export type PublicNodeFacts = {
  region: RegionId;
  city: string | null;
  status: NodeStatus;
  draining: boolean;
  last_seen_at: Date | string | null;
  tags: string[];
  capacity: number;
  /** Peers placed on it (active devices with a key). */
  placed: number;
};

/** A node takes devices now: enrolled and serving, reporting, and not drained by an operator. */
export function isNodeUp(node: Pick<PublicNodeFacts, 'status' | 'draining' | 'last_seen_at'>, now: Date): boolean {
  return node.status === 'active' && !node.draining && isNodeReachable(node.last_seen_at, now);
}

/**
 * The public /servers list: every region in the product's order (empty ones too), each with its
 * cities in alphabetical order, made of its active nodes (pending and retired ones are not
 * servers the public can use). A city is `up` while one of its nodes is up; its load is the
 * load of its up nodes together (a city with none reads `high`: it has no room); it is a
 * gaming city when one of its nodes carries the `gaming` tag. A node without a city (registered
 * before nodes had one) counts under its region's name, so no host name is ever shown.
 */
export function publicRegions(nodes: PublicNodeFacts[], now: Date = new Date()): PublicRegion[] {
  return regions.map((region) => {
    const byCity = new Map<string, PublicNodeFacts[]>();
    for (const node of nodes) {
      if (node.region !== region.id || node.status !== 'active') continue;
      const city = node.city?.trim() || region.label;
      byCity.set(city, [...(byCity.get(city) ?? []), node]);
    }
    const cities = [...byCity.entries()]
      .sort(([a], [b]) => a.localeCompare(b))
      .map(([city, here]) => {
        const up = here.filter((node) => isNodeUp(node, now));
        const placed = up.reduce((sum, node) => sum + node.placed, 0);
        const capacity = up.reduce((sum, node) => sum + node.capacity, 0);
        return {
          city,
          status: up.length > 0 ? ('up' as const) : ('down' as const),
          load: loadLevel(placed, capacity),
          gaming: here.some((node) => node.tags.includes('gaming')),
        };
      });
    return { id: region.id, label: region.label, cities };
  });
}
