import { placementRegions, type RegionChoice, type RegionId } from '@qw/contracts';

/**
 * A node that may take new devices: active, not draining, reachable (the repository asks the
 * database's clock). `devices` are those placed on it (suspended ones too: they come back to it).
 */
export type PlacementCandidate = { id: string; region: RegionId; tags: string[]; devices: number; capacity: number };

export type PlacementRequest = { plan: string | null; choice: RegionChoice; country: string | null };

export type PlacementDecision =
  | { node: PlacementCandidate }
  /** The customer chose a region and no node there has room, though another region has. */
  | { refused: 'region_full'; region: RegionId }
  /** No node anywhere has room. */
  | { refused: 'unavailable' };

const hasRoom = (node: PlacementCandidate) => node.devices < node.capacity;
const load = (node: PlacementCandidate) => node.devices / node.capacity;

/**
 * Among nodes with room: for the Gaming plan the gaming-tagged ones when there are any, then the
 * lowest load (placed / capacity); ties go to the node listed first (the oldest), so placement is
 * stable.
 */
export function chooseNode(candidates: PlacementCandidate[], plan: string | null): PlacementCandidate | undefined {
  const open = candidates.filter(hasRoom);
  const gaming = plan === 'gaming' ? open.filter((node) => node.tags.includes('gaming')) : [];
  const pool = gaming.length > 0 ? gaming : open;
  let best: PlacementCandidate | undefined;
  for (const node of pool) if (!best || load(node) < load(best)) best = node;
  return best;
}

/**
 * Where a device goes: the regions of its choice in order (`placementRegions`: a chosen region
 * alone; Automatic, the region nearest its country and then the others; without a country all
 * regions at once), the first that has a node with room, and there `chooseNode`.
 */
export function placementDecision(candidates: PlacementCandidate[], request: PlacementRequest): PlacementDecision {
  for (const group of placementRegions(request.choice, request.country)) {
    const node = chooseNode(
      candidates.filter((c) => group.includes(c.region)),
      request.plan,
    );
    if (node) return { node };
  }
  if (request.choice !== 'auto' && candidates.some(hasRoom)) return { refused: 'region_full', region: request.choice };
  return { refused: 'unavailable' };
}

/**
 * Whether a device on a node of `region` is where its choice asks: a chosen region is that
 * region; Automatic with a country, the region nearest it; Automatic without one, anywhere.
 */
export function fitsChoice(region: RegionId, choice: RegionChoice, country: string | null): boolean {
  const [first] = placementRegions(choice, country);
  return first?.includes(region) ?? true;
}
