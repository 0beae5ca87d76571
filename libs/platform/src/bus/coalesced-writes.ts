import type { NatsConnection } from '@nats-io/transport-node';

/**
 * The part of nats-core's protocol handler (3.x, `nc.protocol`) this module relies on. It is not
 * public API: `coalesceWrites` checks the shape and changes nothing when it is not there.
 */
type ProtocolHandler = {
  flushPending(): void;
  close(error?: Error): Promise<void>;
  outbound: { size(): number };
  pendingLimit: number;
};

function protocolOf(nc: NatsConnection): ProtocolHandler | undefined {
  const protocol = (nc as unknown as { protocol?: Partial<ProtocolHandler> }).protocol;
  if (
    typeof protocol?.flushPending !== 'function' ||
    typeof protocol.close !== 'function' ||
    typeof protocol.outbound?.size !== 'function' ||
    typeof protocol.pendingLimit !== 'number'
  )
    return undefined;
  return protocol as ProtocolHandler;
}

/**
 * Makes the connection write what it has to send once per turn of the event loop, not once per
 * callback. nats-core queues each publish and writes the queue from a microtask, so every socket
 * event that publishes (an HTTP request asking an RPC, an RPC answered after its query) costs a
 * write of its own. A write on a TCP socket also runs the receiving side's work, and the NATS
 * server reads each write separately (issue #24: a third of the gateway's CPU was in writes).
 * With `setImmediate`, everything queued while the loop handled one round of I/O leaves in one
 * write, right after that round. Nothing waits longer than that round.
 *
 * The queue is still written at once when it reaches the client's own limit (`pendingLimit`),
 * and before the connection closes, so nothing queued is lost by a close that follows a publish.
 * Returns false, changing nothing, when the client is not the shape this was written for.
 */
export function coalesceWrites(nc: NatsConnection): boolean {
  const protocol = protocolOf(nc);
  if (!protocol) return false;
  const flushNow = protocol.flushPending.bind(protocol);
  const close = protocol.close.bind(protocol);
  let scheduled: NodeJS.Immediate | undefined;
  const flushScheduled = () => {
    if (scheduled) clearImmediate(scheduled);
    scheduled = undefined;
    flushNow();
  };
  protocol.flushPending = () => {
    if (protocol.outbound.size() >= protocol.pendingLimit) return flushScheduled();
    scheduled ??= setImmediate(flushScheduled);
  };
  protocol.close = (error?: Error) => {
    flushScheduled();
    return close(error);
  };
  return true;
}
