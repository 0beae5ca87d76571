import { useSearchParams } from 'react-router-dom';
import { TestBillingPortal } from '../../features/billing/components/test-portal';
import { safeReturnPath } from '../../lib/redirects';
import { PageTitle } from '../../ui';

const uuid = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** /billing/test-portal?return=<path>[&org_id=<uuid>]: the local test provider's billing portal. */
export default function TestPortalRoute() {
  const [params] = useSearchParams();
  const returnPath = safeReturnPath(params.get('return'), '/app/personal/billing');
  const orgId = params.get('org_id');
  return (
    <>
      <PageTitle
        title="Billing portal (test)"
        description="Quietwire test billing portal: your plan, invoices and cancellation."
      />
      <TestBillingPortal orgId={orgId && uuid.test(orgId) ? orgId : null} returnPath={returnPath} />
    </>
  );
}
