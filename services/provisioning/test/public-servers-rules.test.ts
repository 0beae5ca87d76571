import { describe, expect, it } from 'vitest';
import { isNodeUp, publicRegions, type PublicNodeFacts } from '../src/servers/public-servers-rules.ts';

const now = new Date('2027-02-01T12:00:00Z');
const secondsAgo = (s: number) => new Date(now.getTime() - s * 1000);

function node(overrides: Partial<PublicNodeFacts> = {}): PublicNodeFacts {
  return {
    region: 'europe',
    city: 'Frankfurt',
    status: 'active',
    draining: false,
    last_seen_at: secondsAgo(5),
    tags: [],
    capacity: 100,
    placed: 10,
    ...overrides,
  };
}

const cityOf = (regions: ReturnType<typeof publicRegions>, region: string, city: string) =>
  regions.find((r) => r.id === region)?.cities.find((c) => c.city === city);

describe('isNodeUp', () => {
  it('is up only while active, reporting and not draining', () => {
    expect(isNodeUp(node(), now)).toBe(true);
    expect(isNodeUp(node({ draining: true }), now)).toBe(false);
    expect(isNodeUp(node({ last_seen_at: secondsAgo(31) }), now)).toBe(false);
    expect(isNodeUp(node({ last_seen_at: secondsAgo(30) }), now)).toBe(true);
    expect(isNodeUp(node({ last_seen_at: null }), now)).toBe(false);
    expect(isNodeUp(node({ status: 'pending' }), now)).toBe(false);
    expect(isNodeUp(node({ status: 'retired' }), now)).toBe(false);
  });
});

describe('publicRegions', () => {
  it('lists every region in the product order, empty ones too', () => {
    const regions = publicRegions([], now);
    expect(regions).toEqual([
      { id: 'north-america', label: 'North America', cities: [] },
      { id: 'europe', label: 'Europe', cities: [] },
      { id: 'asia', label: 'Asia', cities: [] },
    ]);
  });

  it('groups nodes by city within their region, cities in alphabetical order', () => {
    const regions = publicRegions(
      [
        node({ city: 'Paris' }),
        node({ city: 'Frankfurt' }),
        node({ city: 'Frankfurt' }),
        node({ region: 'asia', city: 'Singapore', tags: ['gaming'] }),
      ],
      now,
    );
    expect(regions.map((r) => r.cities.map((c) => c.city))).toEqual([[], ['Frankfurt', 'Paris'], ['Singapore']]);
  });

  it('is up when one node of the city is up, down when none is', () => {
    const regions = publicRegions(
      [
        node({ city: 'Frankfurt', draining: true }),
        node({ city: 'Frankfurt' }),
        node({ city: 'Paris', draining: true }),
        node({ city: 'Paris', last_seen_at: secondsAgo(120) }),
      ],
      now,
    );
    expect(cityOf(regions, 'europe', 'Frankfurt')?.status).toBe('up');
    expect(cityOf(regions, 'europe', 'Paris')?.status).toBe('down');
  });

  it('reads the load of the up nodes together; a city with none up has no room', () => {
    const regions = publicRegions(
      [
        // Up: 40 + 10 of 100 + 100 is a quarter (low); the drained one's 95 of 100 does not count.
        node({ city: 'Frankfurt', placed: 40 }),
        node({ city: 'Frankfurt', placed: 10 }),
        node({ city: 'Frankfurt', placed: 95, draining: true }),
        node({ city: 'Paris', placed: 60 }),
        node({ city: 'Madrid', placed: 80 }),
        node({ city: 'Oslo', placed: 0, last_seen_at: secondsAgo(60) }),
      ],
      now,
    );
    expect(cityOf(regions, 'europe', 'Frankfurt')?.load).toBe('low');
    expect(cityOf(regions, 'europe', 'Paris')?.load).toBe('medium');
    expect(cityOf(regions, 'europe', 'Madrid')?.load).toBe('high');
    expect(cityOf(regions, 'europe', 'Oslo')).toEqual({ city: 'Oslo', status: 'down', load: 'high', gaming: false });
  });

  it('marks a gaming city when one of its nodes carries the tag', () => {
    const regions = publicRegions(
      [node({ city: 'Tokyo', region: 'asia', tags: ['gaming', 'ddos'] }), node({ city: 'Tokyo', region: 'asia' })],
      now,
    );
    expect(cityOf(regions, 'asia', 'Tokyo')?.gaming).toBe(true);
    expect(cityOf(publicRegions([node()], now), 'europe', 'Frankfurt')?.gaming).toBe(false);
  });

  it('leaves out pending and retired nodes', () => {
    const regions = publicRegions([node({ status: 'pending' }), node({ city: 'Paris', status: 'retired' })], now);
    expect(regions.find((r) => r.id === 'europe')?.cities).toEqual([]);
  });

  it("lists a node without a city under its region's name, never its host name", () => {
    const regions = publicRegions([node({ city: null }), node({ city: '  ', region: 'north-america' })], now);
    expect(regions.map((r) => r.cities.map((c) => c.city))).toEqual([['North America'], ['Europe'], []]);
    expect(JSON.stringify(regions)).not.toMatch(/name|ip|endpoint|peers|placed|capacity/);
  });
});
