import { describe, expect, it } from 'vitest';
import { inactiveDevicesText, planStanding } from '../src/features/billing/utils/plan-standing';

/** Issue #15: why the personal Devices page says devices are inactive, as a function of the Billing overview's plan. */
describe('planStanding', () => {
  const plan = (status: string, extra: Record<string, unknown> = {}) => ({ status, plan: 'gaming', ...extra });

  it('an active or past-due plan of the person keeps devices on', () => {
    expect(planStanding(plan('active'))).toEqual({ kind: 'entitled' });
    expect(planStanding(plan('past_due'))).toEqual({ kind: 'entitled' });
    expect(inactiveDevicesText({ kind: 'entitled' })).toBeNull();
  });

  it('no plan at all, or an organization’s, is no plan', () => {
    expect(planStanding(null)).toEqual({ kind: 'no_plan' });
    expect(planStanding(undefined)).toEqual({ kind: 'no_plan' });
    expect(planStanding(plan('active', { org_id: '6f1c0d1e-0000-4000-8000-000000000000' }))).toEqual({
      kind: 'no_plan',
    });
    expect(inactiveDevicesText({ kind: 'no_plan' })).toBe(
      'You have no active plan, so your devices are inactive. Choose a plan in Billing to add and activate devices.',
    );
  });

  it('a plan that ended (canceled, or never paid) names the plan', () => {
    for (const status of ['canceled', 'incomplete', 'unpaid']) {
      expect(planStanding(plan(status))).toEqual({ kind: 'ended', plan: 'Gaming' });
    }
    expect(inactiveDevicesText({ kind: 'ended', plan: 'Gaming' })).toBe(
      'Your Gaming plan was canceled, so your devices are inactive. Subscribe again in Billing to turn them back on.',
    );
  });
});
