import type { EventContract } from './envelope.ts';
import { identityEvents } from './identity/identity.events.ts';
import { billingEvents } from './billing/billing.events.ts';
import { provisioningEvents } from './provisioning/provisioning.events.ts';
import { nodeEvents } from './node/node.events.ts';

/**
 * Every event the product publishes, by owner. Streams are declared from this list, so a
 * consumer can declare its producer's stream even when the producer has not started yet.
 * Product events join as their services come to exist.
 */
export const eventCatalog: readonly EventContract[] = [...identityEvents, ...billingEvents, ...provisioningEvents, ...nodeEvents];

export function eventsOwnedBy(owner: string, catalog: readonly EventContract[] = eventCatalog): EventContract[] {
  return catalog.filter((contract) => contract.subject.startsWith(`${owner}.`));
}

export function ownerOf(contract: EventContract): string {
  return contract.subject.split('.')[0]!;
}
