import type { Kysely } from 'kysely';
import { subscriptionActivated, subscriptionCanceled, subscriptionUpdated } from '@qw/contracts';
import { consumer } from '@qw/platform';
import type { ProvisioningDatabase } from '../database.ts';
import { applySubscription } from '../subscription-changes/subscription-changes.service.ts';

type Db = Kysely<ProvisioningDatabase>;

/** Entitlements follow billing: one durable consumer per subject (NATS 2.9 takes one filter each). */
export const subscriptionConsumers = [
  consumer('provisioning.subscription-activated', subscriptionActivated, (tx: Db, e) => applySubscription(tx, e)),
  consumer('provisioning.subscription-updated', subscriptionUpdated, (tx: Db, e) => applySubscription(tx, e)),
  consumer('provisioning.subscription-canceled', subscriptionCanceled, (tx: Db, e) => applySubscription(tx, e)),
];
