export type PlacementCandidate = { id: string; tags: string[]; devices: number };

/**
 * The least-loaded node; for the Gaming plan the least-loaded gaming-tagged node when there is
 * one. Ties go to the node listed first (the oldest), so placement is stable.
 */
export function chooseNode(candidates: PlacementCandidate[], planCode: string | null): PlacementCandidate | undefined {
  const pool =
    planCode === 'gaming' && candidates.some((c) => c.tags.includes('gaming'))
      ? candidates.filter((c) => c.tags.includes('gaming'))
      : candidates;
  let best: PlacementCandidate | undefined;
  for (const candidate of pool) if (!best || candidate.devices < best.devices) best = candidate;
  return best;
}
