import { describe, expect, it } from 'vitest';
import { bytesSince } from '../src/samples/peer-samples.ts';

describe('traffic between two samples', () => {
  it.each([
    [0, 0, 0, 'nothing yet'],
    [0, 1500, 1500, 'the first sample counts whole'],
    [1000, 1500, 500, 'the difference while the counter grows'],
    [1500, 1500, 0, 'an idle peer'],
    [5000, 200, 200, 'a reset counter: all it shows is new'],
  ])('from %i to %i bytes: %i (%s)', (previous, current, expected) => {
    expect(bytesSince(previous, current)).toBe(expected);
  });
});
