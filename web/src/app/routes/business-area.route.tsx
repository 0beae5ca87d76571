import { VerifyEmailBanner } from '../../features/auth/components/verify-email-banner';
import { OrgSelectionProvider, OrgSelector } from '../../features/organizations/components/org-selection';
import { ConsoleLayout } from '../layouts/console-layout';

/** Spec §2 "Business area": Overview, Devices, Account, Billing, Sign out (replacing history); an organization selector on every screen. */
const businessTabs = [
  { to: '/app/business/overview', label: 'Overview' },
  { to: '/app/business/devices', label: 'Devices' },
  { to: '/app/business/account', label: 'Account' },
  { to: '/app/business/billing', label: 'Billing' },
] as const;

export default function BusinessAreaRoute() {
  return (
    <OrgSelectionProvider>
      <ConsoleLayout area="Business" tabs={businessTabs} toolbar={<OrgSelector />} banner={<VerifyEmailBanner />} signOutReplace />
    </OrgSelectionProvider>
  );
}
