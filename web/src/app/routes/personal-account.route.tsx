import { ProfileForm } from '../../features/account/components/profile-form';
import { SecurityCard } from '../../features/account/components/security-card';
import { YourDataCard } from '../../features/account/components/your-data-card';
import { PageTitle } from '../../ui';

export default function PersonalAccountRoute() {
  return (
    <div className="console-screen">
      <PageTitle title="Account" description="Your Quietwire profile and security settings." />
      <div className="console-screen__head">
        <h1>Account</h1>
      </div>
      <div className="account-grid">
        <ProfileForm />
        <SecurityCard />
        <YourDataCard />
      </div>
    </div>
  );
}
