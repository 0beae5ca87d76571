import type { ReactNode } from 'react';
import { useBilling } from '../../features/billing/api/get-billing';
import { AccountSuspendedBanner } from '../../features/auth/components/account-suspended-banner';
import { VerifyEmailBanner } from '../../features/auth/components/verify-email-banner';
import { managesOrg } from '../../features/organizations/components/organization-account';
import {
  OrgSelectionProvider,
  OrgSelector,
  useSelectedOrg,
} from '../../features/organizations/components/org-selection';
import { hasPersonalPlan } from '../../features/billing/utils/personal-plan';
import { areaSwitchLink } from '../../lib/redirects';
import { AreaSwitch } from '../layouts/area-switch';
import { ConsoleLayout } from '../layouts/console-layout';

/**
 * Spec §2 "Business area" with issue #12's Users and Activity: Overview, Devices, Users, Activity,
 * Account, Billing, and Sign out (replacing history); an organization selector on every screen.
 * `managers`: only for the organization's owners and admins (a member sees no tab they cannot
 * use, issue #26); Billing's plan and invoices are theirs to read too.
 */
const businessTabs = [
  { to: '/app/business/overview', label: 'Overview', managers: false },
  { to: '/app/business/devices', label: 'Devices', managers: false },
  { to: '/app/business/users', label: 'Users', managers: true },
  { to: '/app/business/activity', label: 'Activity', managers: true },
  { to: '/app/business/account', label: 'Account', managers: false },
  { to: '/app/business/billing', label: 'Billing', managers: true },
] as const;

/** The tabs the person may use in the organization chosen (a member's three until the role is known). */
export function businessTabsFor(manages: boolean) {
  return businessTabs.filter((tab) => manages || !tab.managers).map(({ to, label }) => ({ to, label }));
}

export default function BusinessAreaRoute() {
  // A person with a personal plan too switches to the personal area from here.
  const personal = useBilling(null);
  const link = areaSwitchLink('business', {
    orgMember: true,
    hasPersonalPlan: hasPersonalPlan(personal.data?.subscription),
  });
  return (
    <OrgSelectionProvider>
      <BusinessLayout tabExtras={link && <AreaSwitch to={link.to} label={link.label} />} />
    </OrgSelectionProvider>
  );
}

function BusinessLayout({ tabExtras }: { tabExtras: ReactNode }) {
  const { selected } = useSelectedOrg();
  return (
    <ConsoleLayout
      area="Business"
      tabs={businessTabsFor(managesOrg(selected))}
      tabExtras={tabExtras}
      toolbar={<OrgSelector />}
      banner={
        <>
          <AccountSuspendedBanner />
          <VerifyEmailBanner />
        </>
      }
      signOutReplace
    />
  );
}
