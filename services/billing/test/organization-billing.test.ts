import { describe, expect, it } from 'vitest';
import { organizationBillingRefusal, organizationPlanRefusal } from '../src/subscriptions/organization-billing.ts';

describe("who sees an organization's plan and invoices", () => {
  it('owners and admins; a member gets 403; anyone else the 404 of an unknown organization', () => {
    expect(organizationBillingRefusal('owner')).toBeNull();
    expect(organizationBillingRefusal('admin')).toBeNull();
    expect(organizationBillingRefusal('member')).toMatchObject({
      code: 'forbidden',
      message: 'Only owners and admins of the organization see its plan and invoices.',
    });
    expect(organizationBillingRefusal(null)).toMatchObject({ code: 'not_found', message: 'Organization not found.' });
  });
});

describe('buying a plan for an organization one owns (paid again after it ended)', () => {
  const business = { accountType: 'business' as const };
  it('an owner, with a business plan, while no other plan of it runs on', () => {
    expect(organizationPlanRefusal({ role: 'owner', plan: business, runningPlans: 0 })).toBeNull();
  });

  it('not an admin, a member or a stranger', () => {
    expect(organizationPlanRefusal({ role: 'admin', plan: business, runningPlans: 0 })).toMatchObject({
      code: 'forbidden',
      message: 'Only an owner of the organization can add a plan to it.',
    });
    expect(organizationPlanRefusal({ role: 'member', plan: business, runningPlans: 0 })?.code).toBe('forbidden');
    expect(organizationPlanRefusal({ role: null, plan: business, runningPlans: 0 })?.code).toBe('not_found');
  });

  it('not a personal plan, and not while another plan of it still runs (one set to end is fine)', () => {
    expect(
      organizationPlanRefusal({ role: 'owner', plan: { accountType: 'personal' }, runningPlans: 0 }),
    ).toMatchObject({ code: 'validation_failed', message: 'Only a Business plan can be added to an organization.' });
    expect(organizationPlanRefusal({ role: 'owner', plan: business, runningPlans: 1 })).toMatchObject({
      code: 'conflict',
      message: 'This organization already has a plan that runs on. Change it from Manage Billing instead.',
    });
  });
});
