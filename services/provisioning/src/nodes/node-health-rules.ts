import { isNodeReachable } from '@qw/contracts';

/** A node as /metrics reads it: its lifecycle and when it was last heard from (Unix seconds, null: never). */
export type NodeHealthRow = { name: string; status: string; seen: number | null };

/**
 * The health of each active node at `now`: reachable (1) when it reported within 30 s
 * (`isNodeReachable`, the rule placement and the device view use), else 0, and the seconds since
 * its last report (null when never). Pending and retired nodes have no agent to hear from.
 */
export function nodeHealthFigures(rows: readonly NodeHealthRow[], now: Date) {
  return rows
    .filter((row) => row.status === 'active')
    .map((row) => {
      const seen = row.seen === null ? null : new Date(row.seen * 1000);
      return {
        node: row.name,
        reachable: isNodeReachable(seen, now) ? 1 : 0,
        age: seen === null ? null : Math.max(0, (now.getTime() - seen.getTime()) / 1000),
      };
    });
}
