import type { Kysely } from 'kysely';
import { subscriptionActivated, subscriptionCanceled, subscriptionUpdated } from '@qw/contracts';
import { consumer } from '@qw/platform';
import type { ProvisioningDatabase } from '../database.ts';
import { applySubscription } from '../entitlements/entitlements.service.ts';

const apply = (tx: unknown, event: Parameters<typeof applySubscription>[1]) => applySubscription(tx as Kysely<ProvisioningDatabase>, event);

/** Entitlements follow billing: one durable consumer per subject (NATS 2.9 takes one filter each). */
export const subscriptionConsumers = [
  consumer('provisioning.subscription-activated', subscriptionActivated, apply),
  consumer('provisioning.subscription-updated', subscriptionUpdated, apply),
  consumer('provisioning.subscription-canceled', subscriptionCanceled, apply),
];
