import { isNodeReachable } from '@qw/contracts';

/** A node as /metrics reads it: its lifecycle and when it was last heard from (Unix seconds, null: never). */
export type NodeHealthRow = { name: string; status: string; seen: number | null; resolver_state?: string | null };

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

/**
 * Whether each active node's own resolver answered at its agent's latest report (issue #25): 1
 * answering, 0 anything else (starting, not answering, down). Nodes whose agent reports no
 * resolver, or has it off, have no figure.
 */
export function resolverFigures(rows: readonly NodeHealthRow[]) {
  return rows
    .filter((row) => row.status === 'active' && row.resolver_state && row.resolver_state !== 'off')
    .map((row) => ({ node: row.name, answering: row.resolver_state === 'answering' ? 1 : 0 }));
}
