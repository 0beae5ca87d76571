import { isConnected } from '@qw/contracts';

/** A peer that has just connected: its key and the unix seconds of its new handshake. */
export type HandshakeChange = { publicKey: string; latestHandshake: number };

/** Peers per `node.<name>.handshakes.changed` event at most (the contract's limit). */
export const handshakeChangesPerEvent = 1000;

/**
 * `wg show <iface> latest-handshakes`: one "<public key>\t<unix seconds>" line per peer, 0 for a
 * peer that never completed one. Lines that are not that shape are skipped.
 */
export function parseLatestHandshakes(output: string): Map<string, number> {
  const handshakes = new Map<string, number>();
  for (const line of output.split('\n')) {
    const tab = line.indexOf('\t');
    if (tab !== 44) continue;
    const seconds = Number(line.slice(tab + 1));
    if (Number.isInteger(seconds) && seconds >= 0) handshakes.set(line.slice(0, tab), seconds);
  }
  return handshakes;
}

/**
 * The peers that have just connected: a handshake inside the connected window (`isConnected`,
 * the one rule) whose previous reading was none, never, or outside the window. A renewal of a
 * handshake that was already inside the window (WireGuard renews every two minutes) is not a
 * change: the periodic sample carries it.
 */
export function newlyConnected(
  previous: ReadonlyMap<string, number>,
  current: ReadonlyMap<string, number>,
  nowSeconds: number,
): HandshakeChange[] {
  const changes: HandshakeChange[] = [];
  for (const [publicKey, latestHandshake] of current) {
    if (!isConnected(latestHandshake, nowSeconds)) continue;
    const before = previous.get(publicKey) ?? 0;
    if (before === latestHandshake || isConnected(before, nowSeconds)) continue;
    changes.push({ publicKey, latestHandshake });
  }
  return changes;
}

/**
 * Reads the interface's latest handshakes on each tick and publishes only the peers that have
 * just connected, in events of at most `handshakeChangesPerEvent` peers; a tick without such a
 * peer publishes nothing. The reading a tick compares against advances only once its changes are
 * published, so a failed publish is sent again on the next tick. The first tick compares against
 * nothing: peers connected when the agent starts are sent once.
 */
export class HandshakeWatch {
  private last: ReadonlyMap<string, number> = new Map();

  constructor(
    private readonly read: () => Promise<Map<string, number>>,
    private readonly publish: (changes: HandshakeChange[]) => Promise<void>,
    private readonly nowSeconds: () => number = () => Date.now() / 1000,
  ) {}

  /** One reading; returns how many peers were published as newly connected. */
  async tick(): Promise<number> {
    const current = await this.read();
    const changes = newlyConnected(this.last, current, this.nowSeconds());
    for (let i = 0; i < changes.length; i += handshakeChangesPerEvent)
      await this.publish(changes.slice(i, i + handshakeChangesPerEvent));
    this.last = current;
    return changes.length;
  }
}
