import type { Kysely } from 'kysely';
import { subscriptionActivated, subscriptionCanceled, subscriptionUpdated } from '@qw/contracts';
import { consumer } from '@qw/platform';
import type { IdentityDatabase } from '../database.ts';
import { applyOrganizationSubscription } from '../organizations/organizations.service.ts';

type Db = Kysely<IdentityDatabase>;

/**
 * An organization is Active or Suspended by its subscriptions: one durable consumer per subject
 * (NATS 2.9 takes one filter each).
 */
export const subscriptionConsumers = [
  consumer('identity.subscription-activated', subscriptionActivated, (tx: Db, e) =>
    applyOrganizationSubscription(tx, e),
  ),
  consumer('identity.subscription-updated', subscriptionUpdated, (tx: Db, e) => applyOrganizationSubscription(tx, e)),
  consumer('identity.subscription-canceled', subscriptionCanceled, (tx: Db, e) => applyOrganizationSubscription(tx, e)),
];
