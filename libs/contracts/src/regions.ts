/**
 * The fleet's regions and the rules every package reads about them (issue #23): which regions
 * exist, the region nearest a country (a small built-in map, no IP database), the order in which
 * placement tries regions, when a node counts as unreachable and how loaded it reads.
 * Plain data and pure functions; no TypeBox here.
 */

export const regions = [
  { id: 'north-america', label: 'North America' },
  { id: 'europe', label: 'Europe' },
  { id: 'asia', label: 'Asia' },
] as const;

export type RegionId = (typeof regions)[number]['id'];
export const regionIds: RegionId[] = regions.map((region) => region.id);

/** What a device may ask for: a region, or `auto` (the region nearest its country, then the others). */
export type RegionChoice = RegionId | 'auto';
export const regionChoices: RegionChoice[] = ['auto', ...regionIds];

export function isRegionId(value: unknown): value is RegionId {
  return typeof value === 'string' && (regionIds as string[]).includes(value);
}

export function regionLabel(region: string): string {
  if (region === 'auto') return 'Automatic';
  return regions.find((r) => r.id === region)?.label ?? region;
}

/**
 * A region as a node agent or an older row names it ('eu-central', 'us-east-1', 'ap-south'):
 * the product's region it belongs to. Unknown names count as Europe, where the first node was.
 */
export function normaliseRegion(value: string): RegionId {
  const v = value.trim().toLowerCase();
  if (isRegionId(v)) return v;
  if (/^(us|na|ca|north|america|mx)/.test(v)) return 'north-america';
  if (/^(ap|asia|jp|sg|in|kr|hk|tw)/.test(v)) return 'asia';
  return 'europe';
}

/**
 * The region nearest each country (ISO 3166-1 alpha-2). Countries of other continents go to the
 * region with the shortest usual route: South and Central America to North America, Africa and
 * the Middle East to Europe, Oceania to Asia.
 */
const countriesByRegion: Record<RegionId, string> = {
  'north-america':
    'US CA MX GT BZ SV HN NI CR PA CU DO HT JM BS BB TT PR AR BO BR CL CO EC GY PY PE SR UY VE GL BM AG DM GD KN LC VC',
  europe:
    'AD AL AT BA BE BG BY CH CY CZ DE DK EE ES FI FO FR GB GI GR HR HU IE IM IS IT JE GG LI LT LU LV MC MD ME MK MT NL NO PL PT RO RS RU SE SI SK SM UA VA XK ' +
    'TR GE AM AZ IL PS JO LB SY IQ IR SA AE QA KW BH OM YE EG LY TN DZ MA EH MR ML NE TD SD SS ER ET DJ SO KE UG RW BI TZ ' +
    'NG GH CI SN GM GN GW SL LR BF TG BJ CM CF GA GQ CG CD AO ZM ZW MW MZ NA BW ZA LS SZ MG MU SC KM CV ST',
  asia: 'CN JP KR KP TW HK MO MN IN PK BD LK NP BT MV AF KZ KG TJ TM UZ TH VN LA KH MM MY SG ID PH BN TL AU NZ PG FJ SB VU NC PF WS TO',
};

const regionOfCountry = new Map<string, RegionId>(
  (Object.entries(countriesByRegion) as Array<[RegionId, string]>).flatMap(([region, list]) =>
    list.split(/\s+/).map((country) => [country, region] as [string, RegionId]),
  ),
);

/** Every country the built-in map knows, for the country picker. */
export const knownCountries: string[] = [...regionOfCountry.keys()].sort();

/** The region nearest a country; null for a country the map does not know. */
export function regionForCountry(country: string | null | undefined): RegionId | null {
  if (!country) return null;
  return regionOfCountry.get(country.trim().toUpperCase()) ?? null;
}

/** From each region, the others nearest first. */
const nextNearest: Record<RegionId, RegionId[]> = {
  'north-america': ['north-america', 'europe', 'asia'],
  europe: ['europe', 'north-america', 'asia'],
  asia: ['asia', 'europe', 'north-america'],
};

/**
 * The regions placement may use, in order: a chosen region alone (the customer asked for it);
 * Automatic, the region nearest the country first and then the others; Automatic without a
 * known country, every region (placement then takes the least-loaded node anywhere).
 */
export function placementRegions(choice: RegionChoice, country?: string | null): RegionId[][] {
  if (choice !== 'auto') return [[choice]];
  const nearest = regionForCountry(country);
  if (!nearest) return [regionIds];
  return nextNearest[nearest].map((region) => [region]);
}

/** A node agent reports every 10 s; one silent for 30 s is unreachable (so it is marked within 35 s of its last word). */
export const nodeReportSeconds = 10;
export const nodeUnreachableAfterSeconds = 30;

export function isNodeReachable(lastSeenAt: Date | string | null, now: Date = new Date()): boolean {
  if (!lastSeenAt) return false;
  return now.getTime() - new Date(lastSeenAt).getTime() <= nodeUnreachableAfterSeconds * 1000;
}

/** A node's lifecycle: added in the console and waiting for its host (`pending`), serving (`active`), or gone (`retired`). */
export const nodeStatuses = ['pending', 'active', 'retired'] as const;
export type NodeStatus = (typeof nodeStatuses)[number];

/** A server's default capacity in peers when the operator names none. */
export const defaultNodeCapacity = 1000;

export type LoadLevel = 'low' | 'medium' | 'high';

/** How loaded a node reads on the public /servers page and the console: under half, under 80 %, or more. */
export function loadLevel(peers: number, capacity: number): LoadLevel {
  const ratio = capacity > 0 ? peers / capacity : 1;
  if (ratio < 0.5) return 'low';
  if (ratio < 0.8) return 'medium';
  return 'high';
}

/** An enrolment token is valid for an hour and once. */
export const enrolmentTokenTtlSeconds = 3600;
