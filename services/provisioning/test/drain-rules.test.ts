import { describe, expect, it } from 'vitest';
import { chooseDrainTarget, planDrainMoves, type DrainTarget } from '../src/drain/drain-rules.ts';

const target = (id: string, devices: number, capacity = 100, tags: string[] = []): DrainTarget => ({
  id,
  tags,
  devices,
  capacity,
});

describe('chooseDrainTarget', () => {
  it('takes the node with the lowest load ratio, not the fewest peers', () => {
    // b holds more devices but is emptier for its size.
    expect(chooseDrainTarget([target('a', 40, 100), target('b', 60, 1000)], false)?.id).toBe('b');
  });

  it('gives ties to the node listed first (the oldest)', () => {
    expect(chooseDrainTarget([target('a', 10), target('b', 10)], false)?.id).toBe('a');
    expect(chooseDrainTarget([target('b', 10), target('a', 10)], false)?.id).toBe('b');
  });

  it('skips nodes without room; none with room holds the device', () => {
    expect(chooseDrainTarget([target('a', 100, 100), target('b', 99, 100)], false)?.id).toBe('b');
    expect(chooseDrainTarget([target('a', 100, 100), target('b', 120, 100)], false)).toBeUndefined();
    expect(chooseDrainTarget([], false)).toBeUndefined();
  });

  it('sends a Gaming device to a gaming node with room, even a busier one', () => {
    const targets = [target('plain', 0), target('gaming', 90, 100, ['gaming'])];
    expect(chooseDrainTarget(targets, true)?.id).toBe('gaming');
    expect(chooseDrainTarget(targets, false)?.id).toBe('plain');
  });

  it('sends a Gaming device anywhere with room when no gaming node has any', () => {
    const targets = [target('plain', 50), target('gaming', 100, 100, ['gaming'])];
    expect(chooseDrainTarget(targets, true)?.id).toBe('plain');
    expect(chooseDrainTarget([target('gaming', 100, 100, ['gaming'])], true)).toBeUndefined();
  });
});

describe('planDrainMoves', () => {
  it('spreads a batch over the region by load, counting each device placed before it', () => {
    const plan = planDrainMoves(
      Array.from({ length: 6 }, (_, i) => ({ id: `d${i}`, gaming: false })),
      [target('a', 0, 10), target('b', 0, 20)],
    );
    // a: 0/10, b: 0/20 → a; then b (0 < 0.1); b (0.05 < 0.1); a and b tie at 0.1 → a; …
    expect(plan.map((p) => p.targetId)).toEqual(['a', 'b', 'b', 'a', 'b', 'b']);
  });

  it('fills no node past its capacity and holds the devices that do not fit', () => {
    const plan = planDrainMoves(
      Array.from({ length: 5 }, (_, i) => ({ id: `d${i}`, gaming: false })),
      [target('a', 8, 10), target('b', 19, 20)],
    );
    expect(plan).toEqual([
      { deviceId: 'd0', targetId: 'a' },
      { deviceId: 'd1', targetId: 'a' },
      { deviceId: 'd2', targetId: 'b' },
      { deviceId: 'd3', targetId: null },
      { deviceId: 'd4', targetId: null },
    ]);
  });

  it('keeps the gaming node for Gaming devices while it has room, then sends them elsewhere', () => {
    const plan = planDrainMoves(
      [
        { id: 'g1', gaming: true },
        { id: 'p1', gaming: false },
        { id: 'g2', gaming: true },
        { id: 'g3', gaming: true },
      ],
      [target('plain', 0, 10), target('gaming', 0, 2, ['gaming'])],
    );
    expect(plan.map((p) => p.targetId)).toEqual(['gaming', 'plain', 'gaming', 'plain']);
  });

  it('leaves the targets it was given unchanged', () => {
    const targets = [target('a', 0, 10)];
    planDrainMoves([{ id: 'd', gaming: false }], targets);
    expect(targets[0]!.devices).toBe(0);
  });
});
