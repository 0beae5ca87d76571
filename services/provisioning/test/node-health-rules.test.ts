import { describe, expect, it } from 'vitest';
import { nodeHealthFigures, resolverFigures } from '../src/nodes/node-health-rules.ts';

const now = new Date('2027-02-01T12:00:00.000Z');
const secondsAgo = (s: number) => now.getTime() / 1000 - s;

describe('nodeHealthFigures', () => {
  it('reads an active node reachable up to 30 s after its last report, and not after', () => {
    const figures = nodeHealthFigures(
      [
        { name: 'fresh', status: 'active', seen: secondsAgo(2) },
        { name: 'edge', status: 'active', seen: secondsAgo(30) },
        { name: 'silent', status: 'active', seen: secondsAgo(31) },
        { name: 'never', status: 'active', seen: null },
      ],
      now,
    );
    expect(figures).toEqual([
      { node: 'fresh', reachable: 1, age: 2 },
      { node: 'edge', reachable: 1, age: 30 },
      { node: 'silent', reachable: 0, age: 31 },
      { node: 'never', reachable: 0, age: null },
    ]);
  });

  it('leaves out pending and retired nodes, and never counts a report from the future as negative', () => {
    const figures = nodeHealthFigures(
      [
        { name: 'pending', status: 'pending', seen: null },
        { name: 'retired', status: 'retired', seen: secondsAgo(3600) },
        { name: 'skewed', status: 'active', seen: secondsAgo(-1) },
      ],
      now,
    );
    expect(figures).toEqual([{ node: 'skewed', reachable: 1, age: 0 }]);
  });
});

describe("each node's own resolver for /metrics (issue #25)", () => {
  it('is 1 for an active node whose resolver answered, 0 when starting, silent or down, and absent when off or never said', () => {
    const row = (name: string, resolver_state: string | null, status = 'active') => ({
      name,
      status,
      seen: 1,
      resolver_state,
    });
    expect(
      resolverFigures([
        row('a', 'answering'),
        row('b', 'starting'),
        row('c', 'not_answering'),
        row('d', 'down'),
        row('e', 'off'),
        row('f', null),
        row('g', 'answering', 'retired'),
      ]),
    ).toEqual([
      { node: 'a', answering: 1 },
      { node: 'b', answering: 0 },
      { node: 'c', answering: 0 },
      { node: 'd', answering: 0 },
    ]);
  });
});
