import { describe, expect, it } from 'vitest';
import { chooseNode } from '../src/placement/placement-rules.ts';

const node = (id: string, devices: number, tags: string[] = []) => ({ id, devices, tags });

describe('placing a new device', () => {
  it('picks the least-loaded node, the oldest of equals', () => {
    expect(chooseNode([node('a', 3), node('b', 1), node('c', 1)], 'personal')?.id).toBe('b');
    expect(chooseNode([node('a', 2), node('b', 2)], 'personal')?.id).toBe('a');
  });

  it('puts Gaming plan devices on gaming nodes when there are any, even fuller ones', () => {
    const nodes = [node('a', 1), node('g1', 9, ['gaming']), node('g2', 5, ['gaming'])];
    expect(chooseNode(nodes, 'gaming')?.id).toBe('g2');
    expect(chooseNode(nodes, 'personal')?.id).toBe('a');
    expect(chooseNode([node('a', 4), node('b', 2)], 'gaming')?.id).toBe('b');
  });

  it('has nowhere to place without nodes', () => {
    expect(chooseNode([], 'personal')).toBeUndefined();
  });
});
