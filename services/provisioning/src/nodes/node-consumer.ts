import { nodeConsumerName, nodePeerSubjects } from '@qw/contracts';
import { declareDurableConsumer, type BusConnection } from '@qw/platform/bus';

/**
 * Each node reads its peer changes through a durable consumer that provisioning, the stream's
 * owner, makes when the node registers: its filter is the node's own subjects, and the node's
 * credentials may read this consumer but neither change it nor make another. Changes made while
 * the node is away wait in it; the node's reconcile at start covers anything older.
 */
export function ensureNodeConsumer(bus: BusConnection, node: string): Promise<void> {
  return declareDurableConsumer(bus, 'provisioning', {
    durable: nodeConsumerName(node),
    filterSubject: nodePeerSubjects(node),
  });
}
