import { refundWindowDays, type PlanCode } from '@qw/contracts';

/**
 * The one source of competitor data (spec §3 "Competitor data", §9 prices and ranges). Every
 * comparison table on every public page reads this module. The providers are fictional stand-ins;
 * their prices are the spec's figures, in the spec's order.
 */

export const competitorIds = ['harborline', 'meridian', 'skygate', 'pinecrest', 'lattice', 'bluefin'] as const;
export type CompetitorId = (typeof competitorIds)[number];

export type Competitor = {
  id: CompetitorId;
  name: string;
  /** Monthly price in US cents for the provider's standard personal plan (shown with formatUsd). */
  priceMonthlyCents: number;
  devices: string;
  logsPolicy: string;
  gamingNote: string;
};

export const competitors: readonly Competitor[] = [
  {
    id: 'harborline',
    name: 'Harborline VPN',
    priceMonthlyCents: 1295,
    devices: '6 devices',
    logsPolicy: 'No-logs (self-reported)',
    gamingNote: 'No gaming-specific routes',
  },
  {
    id: 'meridian',
    name: 'Meridian Tunnel',
    priceMonthlyCents: 1299,
    devices: '10 devices',
    logsPolicy: 'No-logs (audited)',
    gamingNote: 'Standard routes; ping varies by server',
  },
  {
    id: 'skygate',
    name: 'Skygate VPN',
    priceMonthlyCents: 1295,
    devices: '8 devices',
    logsPolicy: 'Connection times kept for 30 days',
    gamingNote: 'No gaming-specific routes',
  },
  {
    id: 'pinecrest',
    name: 'Pinecrest VPN',
    priceMonthlyCents: 999,
    devices: '5 devices',
    logsPolicy: 'No-logs (self-reported)',
    gamingNote: 'Gaming servers in some regions',
  },
  {
    id: 'lattice',
    name: 'Lattice Privacy',
    priceMonthlyCents: 1299,
    devices: 'Unlimited devices',
    logsPolicy: 'Aggregate usage statistics',
    gamingNote: 'Gaming routes as a paid add-on',
  },
  {
    id: 'bluefin',
    name: 'Bluefin Secure',
    priceMonthlyCents: 1199,
    devices: '7 devices',
    logsPolicy: 'No-logs (audited)',
    gamingNote: 'No DDoS protection on game traffic',
  },
];

export type FeatureComparisonRow = {
  feature: string;
  /** Quietwire's own value. */
  quietwire: string;
  /** One value per competitor. */
  competitors: Readonly<Record<CompetitorId, string>>;
};

export const featureComparison: readonly FeatureComparisonRow[] = [
  {
    feature: 'Protocol',
    quietwire: 'WireGuard only',
    competitors: {
      harborline: 'WireGuard, OpenVPN',
      meridian: 'WireGuard, OpenVPN, IKEv2',
      skygate: 'OpenVPN, own protocol',
      pinecrest: 'WireGuard, OpenVPN',
      lattice: 'Own protocol',
      bluefin: 'WireGuard, IKEv2',
    },
  },
  {
    feature: 'Devices on personal plans',
    quietwire: 'Unlimited',
    competitors: { harborline: '6', meridian: '10', skygate: '8', pinecrest: '5', lattice: 'Unlimited', bluefin: '7' },
  },
  {
    feature: 'Logs policy',
    quietwire: 'Strict no-logs',
    competitors: {
      harborline: 'No-logs (self-reported)',
      meridian: 'No-logs (audited)',
      skygate: 'Connection times, 30 days',
      pinecrest: 'No-logs (self-reported)',
      lattice: 'Aggregate statistics',
      bluefin: 'No-logs (audited)',
    },
  },
  {
    feature: 'Gaming-optimised routes',
    quietwire: 'Yes, on the Gaming plan',
    competitors: {
      harborline: 'No',
      meridian: 'No',
      skygate: 'No',
      pinecrest: 'Some regions',
      lattice: 'Paid add-on',
      bluefin: 'No',
    },
  },
  {
    feature: 'DDoS protection',
    quietwire: 'Yes',
    competitors: {
      harborline: 'Yes',
      meridian: 'Yes',
      skygate: 'No',
      pinecrest: 'Yes',
      lattice: 'No',
      bluefin: 'Not for game traffic',
    },
  },
  {
    feature: 'Setup',
    quietwire: 'Config file or QR code, also by email',
    competitors: {
      harborline: 'Own app',
      meridian: 'Own app',
      skygate: 'Own app',
      pinecrest: 'Own app or config file',
      lattice: 'Own app',
      bluefin: 'Own app or config file',
    },
  },
  {
    feature: 'Business pricing',
    quietwire: 'Published, by device quota',
    competitors: {
      harborline: 'Per seat',
      meridian: 'Quote on request',
      skygate: 'Per seat',
      pinecrest: 'No business plans',
      lattice: 'Quote on request',
      bluefin: 'Per seat',
    },
  },
  {
    feature: 'Money-back guarantee',
    quietwire: `${refundWindowDays} days`,
    competitors: {
      harborline: '30 days',
      meridian: '30 days',
      skygate: '14 days',
      pinecrest: '30 days',
      lattice: '7 days',
      bluefin: '30 days',
    },
  },
  {
    feature: 'Support',
    quietwire: '24/7 email',
    competitors: {
      harborline: '24/7 chat and email',
      meridian: '24/7 chat',
      skygate: 'Email, business hours',
      pinecrest: 'Email',
      lattice: '24/7 chat',
      bluefin: 'Email and chat',
    },
  },
];

/** Shown under the plan's display name (spec §9, `planDisplayName`). */
export type PriceRange = {
  planCode: PlanCode;
  /** What comparable plans cost per month elsewhere (spec §9). */
  range: string;
};

export const priceRanges: readonly PriceRange[] = [
  { planCode: 'personal', range: '$9.99-$12.99' },
  { planCode: 'gaming', range: '$12.99-$15.99' },
  { planCode: 'business10', range: '$60-$99' },
  { planCode: 'business50', range: '$250-$399' },
  { planCode: 'business250', range: '$1,000-$1,500+' },
];
