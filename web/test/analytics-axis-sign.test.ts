import { describe, expect, it } from 'vitest';
import { signedCountLabel, subscriptionsDailyOption } from '../src/features/analytics/chart-options';

/** Issue #26: the cancels below the subscriptions axis read "−10", not "10". */
describe('the subscriptions axis', () => {
  it('writes counts below zero with a minus sign, and zero and counts above without one', () => {
    expect(signedCountLabel(-10)).toBe('\u221210');
    expect(signedCountLabel(-1200)).toBe('\u22121,200');
    expect(signedCountLabel(0)).toBe('0');
    expect(signedCountLabel(25)).toBe('25');
  });

  it("is the daily chart's axis label", () => {
    const palette = { gain: '#0a0', loss: '#a00', series: ['#00a'] } as never;
    const option = subscriptionsDailyOption(
      { rows: [{ day: '2026-11-24', new_subs: 3, cancels: 2 }] } as never,
      palette,
    );
    const axis = option.yAxis as { axisLabel: { formatter: (value: number) => string } };
    expect(axis.axisLabel.formatter(-10)).toBe('\u221210');
  });
});
