import type { EventContract } from './envelope.ts';
import { identityEvents } from './identity/identity.events.ts';
import { billingEvents } from './billing/billing.events.ts';
import { provisioningEvents } from './provisioning/provisioning.events.ts';
import { nodeEvents } from './node/node.events.ts';
import { gatewayEvents } from './gateway/gateway.events.ts';
import { telemetryEvents } from './telemetry/telemetry.events.ts';

/**
 * Every event the product publishes, by owner. Streams are declared from this list, so a
 * consumer can declare its producer's stream even when the producer has not started yet.
 * Product events join as their services come to exist.
 */
export const eventCatalog: readonly EventContract[] = [
  ...identityEvents,
  ...billingEvents,
  ...provisioningEvents,
  ...nodeEvents,
  ...gatewayEvents,
  ...telemetryEvents,
];

export function eventsOwnedBy(owner: string, catalog: readonly EventContract[] = eventCatalog): EventContract[] {
  return catalog.filter((contract) => contract.subject.startsWith(`${owner}.`));
}

export function ownerOf(contract: EventContract): string {
  return contract.subject.split('.')[0]!;
}

/**
 * The streams whose whole history is kept (no age limit): the analytics projections are rebuilt
 * from them after a change of definition. None of their events carries an address, an e-mail,
 * a key or a token. Every other stream keeps a week, enough for any consumer to catch up.
 */
export const historyStreams = ['billing', 'identity', 'gateway'] as const;

export function keepsHistory(owner: string): boolean {
  return (historyStreams as readonly string[]).includes(owner);
}
