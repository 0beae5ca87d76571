import { useCallback } from 'react';
import { CheckoutComplete } from '../../features/checkout/components/checkout-complete';
import type { ClaimedCheckout } from '../../features/checkout/api/claim-checkout';
import { rememberOrganization } from '../../features/organizations/components/org-selection';
import { useAuth } from '../../lib/auth/auth-provider';
import { PageTitle } from '../../ui';

/** Where a checkout started in the app comes back (signed in): the purchase is added, a new organization chosen. */
export default function CheckoutCompleteRoute() {
  const { user } = useAuth();
  const userId = user?.id;
  const onClaimed = useCallback(
    (claimed: ClaimedCheckout) => {
      if (claimed.org_id) rememberOrganization(userId, claimed.org_id);
    },
    [userId],
  );
  return (
    <>
      <PageTitle title="Finishing your purchase" description="Adding your new Quietwire plan to your account." />
      <CheckoutComplete onClaimed={onClaimed} />
    </>
  );
}
