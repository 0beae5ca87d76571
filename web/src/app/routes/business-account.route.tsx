import { ProfileForm } from '../../features/account/components/profile-form';
import { SecurityCard } from '../../features/account/components/security-card';
import { YourDataCard } from '../../features/account/components/your-data-card';
import { OrganizationAccount } from '../../features/organizations/components/organization-account';
import { PageTitle } from '../../ui';

export default function BusinessAccountRoute() {
  return (
    <div className="console-screen">
      <PageTitle title="Business account" description="Your organization, your profile and your security settings." />
      <div className="console-screen__head">
        <h1>Account</h1>
      </div>
      <OrganizationAccount />
      <div className="account-grid">
        <ProfileForm />
        <SecurityCard />
        <YourDataCard />
      </div>
    </div>
  );
}
