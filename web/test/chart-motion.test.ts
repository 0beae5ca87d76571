import type { EChartsOption } from 'echarts';
import { describe, expect, it } from 'vitest';
import { legendEntries, shownOption } from '../src/ui/chart-canvas';

/** What the charts hand echarts: a visitor who asks for less motion gets charts that do not animate. */
describe('shownOption', () => {
  const option: EChartsOption = {
    legend: {},
    xAxis: { type: 'category', data: ['a', 'b'] },
    yAxis: { type: 'value' },
    series: [
      { name: 'Signups', type: 'line', data: [1, 2] },
      { name: 'Cancellations', type: 'line', data: [0, 1] },
    ],
  };
  const entries = legendEntries(option, ['#0f766e', '#1e3a5f']);

  it('turns animation off when the visitor prefers reduced motion, and leaves it to echarts otherwise', () => {
    expect(shownOption(option, entries, new Set(), true).animation).toBe(false);
    expect(shownOption(option, entries, new Set(), false).animation).toBeUndefined();
    const plain: EChartsOption = { series: [{ type: 'pie', data: [{ value: 1 }] }] };
    expect(shownOption(plain, [], new Set(), false)).toBe(plain);
    expect(shownOption(plain, [], new Set(), true)).toEqual({ ...plain, animation: false });
  });

  it('hides echarts’ own legend and switches off the series the visitor hid, with or without motion', () => {
    for (const still of [true, false]) {
      const shown = shownOption(option, entries, new Set(['Cancellations']), still);
      expect(shown.legend).toEqual({
        show: false,
        data: ['Signups', 'Cancellations'],
        selected: { Signups: true, Cancellations: false },
      });
      expect(shown.series).toBe(option.series);
    }
  });
});
