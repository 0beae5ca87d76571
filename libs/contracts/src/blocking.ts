/**
 * Content blocking, chosen per device (Tunnel privacy). Each category is one bit of a mask; the
 * mask selects which resolver address a device's config names (libs/wireguard
 * `resolverAddresses`), so a plain wg-quick config carries the policy and the node needs no
 * per-device state. Mask 0 is "no blocking": the node's own tunnel addresses.
 */
export const blockingCategories = ['ads', 'trackers', 'malware', 'adult', 'gambling'] as const;
export type BlockingCategory = (typeof blockingCategories)[number];

export const blockingCategoryBit: Readonly<Record<BlockingCategory, number>> = {
  ads: 1,
  trackers: 2,
  malware: 4,
  adult: 8,
  gambling: 16,
};

export const blockingCategoryLabel: Readonly<Record<BlockingCategory, string>> = {
  ads: 'Ads',
  trackers: 'Trackers',
  malware: 'Malware',
  adult: 'Adult content',
  gambling: 'Gambling',
};

/** Every mask from 1 (ads only) to 31 (all five). */
export const maxBlockingMask = 31;

export function blockingMaskOf(categories: Iterable<BlockingCategory>): number {
  let mask = 0;
  for (const category of categories) mask |= blockingCategoryBit[category];
  return mask;
}

export function blockingCategoriesOf(mask: number): BlockingCategory[] {
  if (!Number.isInteger(mask) || mask < 0 || mask > maxBlockingMask) {
    throw new RangeError(`blocking mask must be an integer from 0 to ${maxBlockingMask}, got ${mask}`);
  }
  return blockingCategories.filter((category) => (mask & blockingCategoryBit[category]) !== 0);
}
