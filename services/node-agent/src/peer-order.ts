import type { PeerChange } from '@qw/wireguard';

/** How long a key's newest change is remembered: far beyond JetStream's 30 s ack wait. */
const rememberMs = 10 * 60_000;

/**
 * Keeps a node's peer changes in the order provisioning made them. Each change carries the
 * number of the outbox row it left provisioning in (`outboxSequenceOf`); for one key these
 * numbers follow the order of its changes. The order the node reads them in may not: JetStream
 * delivers a change again when its ack was lost (its consumer's leader cut off from the cluster)
 * or when it failed here, and the outbox relay publishes a change whose publish failed after
 * later ones went through. Applying such a change late would undo a newer one (a removed device
 * back on the interface until the next reconcile). So the newest number applied to each key is
 * remembered, and a change older than that for a key is dropped for that key. A change read again
 * at the same number applies again, which changes nothing.
 */
export class PeerChangeOrder {
  private readonly newest = new Map<string, { sequence: number; at: number }>();

  constructor(private readonly now: () => number = Date.now) {}

  /** What of `changes`, made at outbox number `sequence`, no newer change has overtaken. */
  current(changes: readonly PeerChange[], sequence: number): PeerChange[] {
    return changes.filter((change) => (this.newest.get(change.publicKey)?.sequence ?? 0) <= sequence);
  }

  /** Records `changes` as applied at `sequence`. */
  applied(changes: readonly PeerChange[], sequence: number): void {
    const at = this.now();
    for (const change of changes) {
      const known = this.newest.get(change.publicKey);
      if (!known || known.sequence <= sequence) this.newest.set(change.publicKey, { sequence, at });
    }
  }

  /** Forgets keys not changed for ten minutes (the reconcile has long since covered them). */
  forgetOld(): void {
    const before = this.now() - rememberMs;
    for (const [key, { at }] of this.newest) if (at < before) this.newest.delete(key);
  }

  get size(): number {
    return this.newest.size;
  }
}
