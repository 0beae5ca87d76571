import { fairUseDeviceCeiling } from './devices.ts';

/** The plan catalog of spec §3 and §9, the one source for web, billing and provisioning. */
export const planCodes = ['personal', 'gaming', 'business10', 'business50', 'business250'] as const;
export type PlanCode = (typeof planCodes)[number];
export type AccountType = 'personal' | 'business';

/**
 * How "unlimited devices" is sold wherever a plan is offered (issue #26): with its fair-use
 * ceiling, so nobody learns of the ceiling only after paying.
 */
export const unlimitedDevicesText = `Unlimited devices (fair use: up to ${fairUseDeviceCeiling} per account)`;

export type Plan = {
  code: PlanCode;
  name: string;
  priceCents: number;
  currency: 'USD';
  interval: 'month';
  /** null means unlimited devices. */
  devices: number | null;
  /** Members an organization on this plan may have; null means no cap. */
  userCap: number | null;
  badge: 'Most Popular' | 'Best for Teams' | null;
  accountType: AccountType;
  /** The payment provider's price id; a placeholder until a Stripe account is configured. */
  priceId: string;
  features: readonly string[];
};

export const plans: readonly Plan[] = [
  {
    code: 'personal',
    name: 'Personal',
    priceCents: 799,
    currency: 'USD',
    interval: 'month',
    devices: null,
    userCap: null,
    badge: null,
    accountType: 'personal',
    priceId: 'price_personal_monthly',
    features: [
      unlimitedDevicesText,
      'Strict no-logs policy',
      'WireGuard config file and QR code',
      'Servers in North America, Europe and Asia',
      '24/7 email support',
    ],
  },
  {
    code: 'gaming',
    name: 'Gaming',
    priceCents: 1199,
    currency: 'USD',
    interval: 'month',
    devices: null,
    userCap: null,
    badge: 'Most Popular',
    accountType: 'personal',
    priceId: 'price_gaming_monthly',
    features: [
      unlimitedDevicesText,
      'Gaming-optimised low-latency routes',
      'DDoS protection',
      'Strict no-logs policy',
      '24/7 email support',
    ],
  },
  {
    code: 'business10',
    name: 'Business 10',
    priceCents: 5000,
    currency: 'USD',
    interval: 'month',
    devices: 10,
    userCap: 10,
    badge: null,
    accountType: 'business',
    priceId: 'price_business10_monthly',
    features: [
      '10 devices',
      'Up to 10 users',
      '5 devices per user',
      'Add and revoke devices centrally',
      '24/7 email support',
    ],
  },
  {
    code: 'business50',
    name: 'Business 50',
    priceCents: 20000,
    currency: 'USD',
    interval: 'month',
    devices: 50,
    userCap: 50,
    badge: 'Best for Teams',
    accountType: 'business',
    priceId: 'price_business50_monthly',
    features: [
      '50 devices',
      'Up to 50 users',
      'Role-based device management',
      'Manage employee access',
      '24/7 email support',
    ],
  },
  {
    code: 'business250',
    name: 'Business 250+',
    priceCents: 85000,
    currency: 'USD',
    interval: 'month',
    devices: 250,
    userCap: 250,
    badge: null,
    accountType: 'business',
    priceId: 'price_business250_monthly',
    features: [
      '250 devices (contact us for more)',
      'Up to 250 users',
      'Role-based device management',
      'Manage employee access',
      '24/7 email support',
    ],
  },
];

export function isPlanCode(value: unknown): value is PlanCode {
  return typeof value === 'string' && (planCodes as readonly string[]).includes(value);
}

export function findPlan(code: unknown): Plan | undefined {
  return plans.find((plan) => plan.code === code);
}

/** Display names of spec §9, including codes that are not sold any more. */
export const planDisplayNames: Readonly<Record<string, string>> = {
  free: 'Free',
  pro: 'Pro',
  enterprise: 'Enterprise',
  personal: 'Personal',
  gaming: 'Gaming',
  business10: 'Business 10',
  business50: 'Business 50',
  business250: 'Business 250',
};

export function planDisplayName(code: string | null | undefined): string {
  if (!code) return '—';
  return planDisplayNames[code] ?? code;
}

/** Spec §9: each business user may have at most this many organization devices. */
export const orgDevicesPerUser = 5;
/** Spec §9: the money-back window. */
export const refundWindowDays = 7;
/** Spec §9: checkout always buys one unit. */
export const checkoutQuantity = 1;

export function formatUsd(cents: number): string {
  return `$${(cents / 100).toFixed(2)}`;
}
