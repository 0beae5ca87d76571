import { AppError, isPlatform, type Platform } from '@qw/contracts';

export const deviceNameMaxLength = 64;

/** Spec §5: a name must be non-empty after trimming; we also cap it at 64 characters. */
export function validDeviceName(raw: unknown): string {
  const name = typeof raw === 'string' ? raw.trim().replace(/\s+/g, ' ') : '';
  if (!name) throw new AppError('validation_failed', 'Please enter a device name.', { field: 'name' });
  if (name.length > deviceNameMaxLength) throw new AppError('validation_failed', `Device name can be at most ${deviceNameMaxLength} characters.`, { field: 'name' });
  return name;
}

export function validPlatform(raw: unknown): Platform {
  if (!isPlatform(raw)) throw new AppError('validation_failed', 'Invalid platform.', { field: 'platform' });
  return raw;
}

/** Subscription states that still entitle devices: paying, or in the grace of a failed payment. */
export const entitledStatuses = ['active', 'past_due'] as const;

export type PlacementCandidate = { id: string; tags: string[]; devices: number };

/**
 * The least-loaded node; for the Gaming plan the least-loaded gaming-tagged node when there is
 * one. Ties go to the node listed first (the oldest), so placement is stable.
 */
export function chooseNode(candidates: PlacementCandidate[], planCode: string | null): PlacementCandidate | undefined {
  const pool = planCode === 'gaming' && candidates.some((c) => c.tags.includes('gaming')) ? candidates.filter((c) => c.tags.includes('gaming')) : candidates;
  let best: PlacementCandidate | undefined;
  for (const candidate of pool) if (!best || candidate.devices < best.devices) best = candidate;
  return best;
}
