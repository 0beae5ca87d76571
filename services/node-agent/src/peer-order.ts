import type { PeerChange } from '@qw/wireguard';

/** How long a key's newest change is remembered: far beyond JetStream's 30 s ack wait. */
const rememberMs = 10 * 60_000;

/**
 * Keeps a node's peer changes in the order provisioning made them. JetStream hands a node its
 * changes in stream order, but one whose ack was lost (its consumer's leader cut off from the
 * cluster) comes again after the ack wait, and one that failed here comes again a second later:
 * by then newer changes to the same keys may be on the interface, and applying the old one would
 * undo them (a removed device back on the interface until the next reconcile). So the newest
 * stream sequence applied to each key is remembered, and a change older than that for a key is
 * dropped for that key. A redelivery at the same sequence applies again, which changes nothing.
 */
export class PeerChangeOrder {
  private readonly newest = new Map<string, { sequence: number; at: number }>();

  constructor(private readonly now: () => number = Date.now) {}

  /** What of `changes`, made at stream sequence `sequence`, no newer change has overtaken. */
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
