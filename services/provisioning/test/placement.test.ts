import { describe, expect, it } from 'vitest';
import type { RegionId } from '@qw/contracts';
import { chooseNode, fitsChoice, placementDecision } from '../src/placement/placement-rules.ts';

const node = (
  id: string,
  devices: number,
  options: { tags?: string[]; region?: RegionId; capacity?: number } = {},
) => ({
  id,
  devices,
  tags: options.tags ?? [],
  region: options.region ?? 'europe',
  capacity: options.capacity ?? 100,
});

describe('choosing among nodes', () => {
  it('picks the least-loaded node, the oldest of equals', () => {
    expect(chooseNode([node('a', 3), node('b', 1), node('c', 1)], 'personal')?.id).toBe('b');
    expect(chooseNode([node('a', 2), node('b', 2)], 'personal')?.id).toBe('a');
  });

  it('compares load as placed / capacity, not placed alone', () => {
    const nodes = [node('small', 5, { capacity: 10 }), node('big', 40, { capacity: 1000 })];
    expect(chooseNode(nodes, 'personal')?.id).toBe('big');
    expect(chooseNode([node('a', 50, { capacity: 100 }), node('b', 5, { capacity: 10 })], null)?.id).toBe('a');
  });

  it('never fills a node past its capacity', () => {
    expect(chooseNode([node('full', 10, { capacity: 10 }), node('b', 90, { capacity: 100 })], null)?.id).toBe('b');
    expect(chooseNode([node('full', 10, { capacity: 10 })], null)).toBeUndefined();
  });

  it('puts Gaming plan devices on gaming nodes with room when there are any, even fuller ones', () => {
    const nodes = [node('a', 1), node('g1', 90, { tags: ['gaming'] }), node('g2', 50, { tags: ['gaming'] })];
    expect(chooseNode(nodes, 'gaming')?.id).toBe('g2');
    expect(chooseNode(nodes, 'personal')?.id).toBe('a');
    expect(chooseNode([node('a', 4), node('b', 2)], 'gaming')?.id).toBe('b');
    const fullGaming = [node('a', 1), node('g', 10, { tags: ['gaming'], capacity: 10 })];
    expect(chooseNode(fullGaming, 'gaming')?.id).toBe('a');
  });

  it('has nowhere to place without nodes', () => {
    expect(chooseNode([], 'personal')).toBeUndefined();
  });
});

describe('placing a device by its region choice', () => {
  const eu = node('eu', 50, { region: 'europe' });
  const euGaming = node('eu-g', 80, { region: 'europe', tags: ['gaming'] });
  const na = node('na', 1, { region: 'north-america' });
  const asia = node('asia', 0, { region: 'asia' });
  const fleet = [eu, euGaming, na, asia];
  const place = (
    choice: Parameters<typeof placementDecision>[1]['choice'],
    country: string | null,
    plan = 'personal',
  ) => placementDecision(fleet, { plan, choice, country });

  it('keeps to a chosen region, however loaded, and to its gaming nodes for Gaming', () => {
    expect(place('europe', null)).toEqual({ node: eu });
    expect(place('europe', 'JP')).toEqual({ node: eu });
    expect(place('europe', null, 'gaming')).toEqual({ node: euGaming });
    expect(place('asia', null, 'gaming')).toEqual({ node: asia });
  });

  it('Automatic takes the region nearest the country, then the next nearest when it is full', () => {
    expect(place('auto', 'DE')).toEqual({ node: eu });
    expect(place('auto', 'BR')).toEqual({ node: na });
    expect(place('auto', 'AU')).toEqual({ node: asia });
    const europeFull = [node('eu', 10, { capacity: 10 }), na, asia];
    expect(placementDecision(europeFull, { plan: null, choice: 'auto', country: 'FR' })).toEqual({ node: na });
  });

  it('Automatic without a country takes the least-loaded node anywhere', () => {
    expect(place('auto', null)).toEqual({ node: asia });
    expect(place('auto', null, 'gaming')).toEqual({ node: euGaming });
  });

  it('refuses a chosen region without room by its name, and says unavailable when nothing has room', () => {
    const asiaFull = [eu, node('asia', 5, { region: 'asia', capacity: 5 })];
    expect(placementDecision(asiaFull, { plan: null, choice: 'asia', country: null })).toEqual({
      refused: 'region_full',
      region: 'asia',
    });
    expect(placementDecision([eu], { plan: null, choice: 'north-america', country: 'US' })).toEqual({
      refused: 'region_full',
      region: 'north-america',
    });
    expect(placementDecision([], { plan: null, choice: 'asia', country: null })).toEqual({ refused: 'unavailable' });
    expect(placementDecision([], { plan: null, choice: 'auto', country: 'DE' })).toEqual({ refused: 'unavailable' });
    const allFull = [node('x', 1, { capacity: 1 })];
    expect(placementDecision(allFull, { plan: null, choice: 'europe', country: null })).toEqual({
      refused: 'unavailable',
    });
  });
});

describe('whether a device’s server fits its choice', () => {
  it('fits the chosen region, the region nearest the country for Automatic, and anywhere without one', () => {
    expect(fitsChoice('europe', 'europe', null)).toBe(true);
    expect(fitsChoice('asia', 'europe', 'JP')).toBe(false);
    expect(fitsChoice('asia', 'auto', 'JP')).toBe(true);
    expect(fitsChoice('europe', 'auto', 'JP')).toBe(false);
    expect(fitsChoice('north-america', 'auto', null)).toBe(true);
  });
});
