import { describe, expect, it } from 'vitest';
import { pageFromNearerEnd } from '../src/admin/fleet.service.ts';

/** Rows `offset`..`offset + perPage` of a list of `total`, as the plan reads them. */
function read(total: number, offset: number, perPage: number): number[] {
  const list = Array.from({ length: total }, (_, i) => i);
  const plan = pageFromNearerEnd(total, offset, perPage);
  if (!plan.reversed) return list.slice(plan.offset, plan.offset + plan.limit);
  return [...list]
    .reverse()
    .slice(plan.offset, plan.offset + plan.limit)
    .reverse();
}

describe('a deep page of the console device list is read from the nearer end', () => {
  it('gives the same rows as reading forwards, on every page including a short last one', () => {
    for (const [total, perPage] of [
      [100, 25],
      [101, 25],
      [7, 3],
      [1, 25],
    ] as const) {
      for (let offset = 0; offset < total + perPage; offset += perPage) {
        const forwards = Array.from({ length: total }, (_, i) => i).slice(offset, offset + perPage);
        expect(read(total, offset, perPage), `${total}/${perPage} at ${offset}`).toEqual(forwards);
      }
    }
  });

  it('reads the last page of 100,000 from the end with no skipped rows', () => {
    expect(pageFromNearerEnd(100_000, 99_975, 25)).toEqual({ reversed: true, offset: 0, limit: 25 });
    expect(pageFromNearerEnd(100_010, 100_000, 25)).toEqual({ reversed: true, offset: 0, limit: 10 });
    expect(pageFromNearerEnd(100_000, 25, 25)).toEqual({ reversed: false, offset: 25, limit: 25 });
    expect(pageFromNearerEnd(10, 10, 25)).toEqual({ reversed: false, offset: 10, limit: 0 });
  });
});
