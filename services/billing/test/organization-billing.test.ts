import { describe, expect, it } from 'vitest';
import { organizationBillingRefusal, organizationPlanRefusal } from '../src/subscriptions/organization-billing.ts';

describe("who sees an organization's plan and invoices", () => {
  it('owners and admins; a member gets 403; anyone else the 404 of an unknown organization', () => {
    expect(organizationBillingRefusal('owner', 'read')).toBeNull();
    expect(organizationBillingRefusal('admin', 'read')).toBeNull();
    expect(organizationBillingRefusal('member', 'read')).toMatchObject({
      code: 'forbidden',
      message: 'Only owners and admins of the organization see its plan and invoices.',
    });
    expect(organizationBillingRefusal(null, 'read')).toMatchObject({
      code: 'not_found',
      message: 'Organization not found.',
    });
  });
});

describe("who acts on an organization's billing: its owners, for every action", () => {
  const messages = {
    manage: 'Only an owner of the organization can manage its billing. Ask one of its owners.',
    cancel: 'Only an owner of the organization can cancel its plan. Ask one of its owners.',
    change: 'Only an owner of the organization can change its plan. Ask one of its owners.',
    resume: 'Only an owner of the organization can resume its plan. Ask one of its owners.',
  } as const;
  for (const [action, message] of Object.entries(messages) as Array<[keyof typeof messages, string]>) {
    it(`${action}: an owner; its admins and members 403; anyone else 404`, () => {
      expect(organizationBillingRefusal('owner', action)).toBeNull();
      for (const role of ['admin', 'member'] as const)
        expect(organizationBillingRefusal(role, action)).toMatchObject({ code: 'forbidden', message });
      expect(organizationBillingRefusal(null, action)).toMatchObject({
        code: 'not_found',
        message: 'Organization not found.',
      });
    });
  }
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
