import { AccountDeleted } from '../../features/account/components/account-deleted';
import { PageTitle } from '../../ui';

export default function AccountDeletedRoute() {
  return (
    <>
      <PageTitle title="Account deleted" description="Your Quietwire account has been deleted." />
      <AccountDeleted />
    </>
  );
}
