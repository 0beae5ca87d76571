import pg from 'pg';
import { RpcClient } from '@qw/platform';

/** The RPCs asked or forwarded and the Postgres statements sent since the last `reset`. */
export type RoundTrips = { rpcs: number; queries: number };

/**
 * Counts what this process sends out, for a stack whose gateway and services all run in it:
 * every RPC asked or forwarded through `RpcClient` (the gateway forwards the lists), and every
 * statement handed to a Postgres connection, whatever wraps Client.query (the pools' prepared
 * statements replace each client's own). `stop` puts the methods back.
 */
export function countRoundTrips(): { counted: RoundTrips; reset(): void; stop(): void } {
  const counted: RoundTrips = { rpcs: 0, queries: 0 };
  const undo: Array<() => void> = [];
  const wrap = (target: object, name: string, into: keyof RoundTrips) => {
    const methods = target as Record<string, (...args: unknown[]) => unknown>;
    const original = methods[name]!;
    methods[name] = function (this: unknown, ...args: unknown[]) {
      counted[into]++;
      return original.apply(this, args);
    };
    undo.push(() => {
      methods[name] = original;
    });
  };
  wrap(RpcClient.prototype, 'request', 'rpcs');
  wrap(RpcClient.prototype, 'forward', 'rpcs');
  wrap((pg as unknown as { Query: { prototype: object } }).Query.prototype, 'submit', 'queries');
  return {
    counted,
    reset() {
      counted.rpcs = 0;
      counted.queries = 0;
    },
    stop() {
      for (const restore of undo.reverse()) restore();
    },
  };
}
