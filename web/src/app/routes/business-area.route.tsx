import { useBilling } from '../../features/billing/api/get-billing';
import { VerifyEmailBanner } from '../../features/auth/components/verify-email-banner';
import { OrgSelectionProvider, OrgSelector } from '../../features/organizations/components/org-selection';
import { hasPersonalPlan } from '../../features/billing/utils/personal-plan';
import { areaSwitchLink } from '../../lib/redirects';
import { AreaSwitch } from '../layouts/area-switch';
import { ConsoleLayout } from '../layouts/console-layout';

/**
 * Spec §2 "Business area" with issue #12's Users and Activity: Overview, Devices, Users, Activity,
 * Account, Billing, and Sign out (replacing history); an organization selector on every screen.
 */
const businessTabs = [
  { to: '/app/business/overview', label: 'Overview' },
  { to: '/app/business/devices', label: 'Devices' },
  { to: '/app/business/users', label: 'Users' },
  { to: '/app/business/activity', label: 'Activity' },
  { to: '/app/business/account', label: 'Account' },
  { to: '/app/business/billing', label: 'Billing' },
] as const;

export default function BusinessAreaRoute() {
  // A person with a personal plan too switches to the personal area from here.
  const personal = useBilling(null);
  const link = areaSwitchLink('business', {
    orgMember: true,
    hasPersonalPlan: hasPersonalPlan(personal.data?.subscription),
  });
  return (
    <OrgSelectionProvider>
      <ConsoleLayout
        area="Business"
        tabs={businessTabs}
        tabExtras={link && <AreaSwitch to={link.to} label={link.label} />}
        toolbar={<OrgSelector />}
        banner={<VerifyEmailBanner />}
        signOutReplace
      />
    </OrgSelectionProvider>
  );
}
