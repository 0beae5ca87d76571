import { AccountSuspendedBanner } from '../../features/auth/components/account-suspended-banner';
import { VerifyEmailBanner } from '../../features/auth/components/verify-email-banner';
import { useAuth } from '../../lib/auth/auth-provider';
import { areaSwitchLink } from '../../lib/redirects';
import { AreaSwitch } from '../layouts/area-switch';
import { ConsoleLayout } from '../layouts/console-layout';

/** Spec §2 "Personal area": Overview, Devices, Account, Billing, and Sign out (to /). */
const personalTabs = [
  { to: '/app/personal/overview', label: 'Overview' },
  { to: '/app/personal/devices', label: 'Devices' },
  { to: '/app/personal/account', label: 'Account' },
  { to: '/app/personal/billing', label: 'Billing' },
] as const;

export default function PersonalAreaRoute() {
  const { me } = useAuth();
  // A member of an organization (or a business account) switches to the business area from here.
  const link = areaSwitchLink('personal', {
    orgMember: me?.org_member === true,
    accountType: me?.profile.account_type,
    hasPersonalPlan: true,
  });
  return (
    <ConsoleLayout
      area="Personal"
      tabs={personalTabs}
      tabExtras={link && <AreaSwitch to={link.to} label={link.label} />}
      banner={
        <>
          <AccountSuspendedBanner />
          <VerifyEmailBanner />
        </>
      }
    />
  );
}
