import { Alert } from '../../../ui';
import { isApiError } from '../../../lib/api-client';
import { useBilling } from '../api/get-billing';
import { CurrentPlanCard } from './current-plan-card';
import { InvoiceTable } from './invoice-table';
import './billing.css';

/** The Billing tab of either area: the current plan with Manage Billing, then the invoices. */
export function BillingOverviewPanel({ orgId, returnPath }: { orgId: string | null; returnPath: string }) {
  const billing = useBilling(orgId);
  return (
    <div className="qw-stack qw-stack--lg">
      {billing.isError && <Alert tone="error">{isApiError(billing.error) && billing.error.status < 500 && billing.error.status > 0 ? billing.error.message : 'We couldn’t load your billing details. Please reload the page.'}</Alert>}
      <CurrentPlanCard subscription={billing.data?.subscription} loading={billing.isPending} returnPath={returnPath} orgId={orgId} />
      <InvoiceTable invoices={billing.data?.invoices} loading={billing.isPending} />
    </div>
  );
}
