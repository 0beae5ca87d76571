import { VerifyEmailBanner } from '../../features/auth/components/verify-email-banner';
import { ConsoleLayout } from '../layouts/console-layout';

/** Spec §2 "Personal area": Overview, Devices, Account, Billing, and Sign out (to /). */
const personalTabs = [
  { to: '/app/personal/overview', label: 'Overview' },
  { to: '/app/personal/devices', label: 'Devices' },
  { to: '/app/personal/account', label: 'Account' },
  { to: '/app/personal/billing', label: 'Billing' },
] as const;

export default function PersonalAreaRoute() {
  return <ConsoleLayout area="Personal" tabs={personalTabs} banner={<VerifyEmailBanner />} />;
}
