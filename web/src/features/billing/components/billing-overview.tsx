import type { ReactNode } from 'react';
import { Alert } from '../../../ui';
import { failureMessage } from '../../../lib/api-client';
import { useBilling } from '../api/get-billing';
import { BillingDetailsCard } from './billing-details-card';
import { CurrentPlanCard } from './current-plan-card';
import { InvoiceTable } from './invoice-table';
import './billing.css';

/**
 * The Billing tab of either area: the current plan with Manage Billing, what can be done about it
 * (`actions`, the personal page's plan changes), the billing details receipts show (issue #26),
 * then the invoices.
 */
export function BillingOverviewPanel({
  orgId,
  returnPath,
  actions,
  manage = true,
}: {
  orgId: string | null;
  returnPath: string;
  actions?: ReactNode;
  /** Offers Manage Billing (false: an organization's admin, who reads but may not change it). */
  manage?: boolean;
}) {
  const billing = useBilling(orgId);
  return (
    <div className="qw-stack qw-stack--lg">
      {billing.isError && <BillingLoadError error={billing.error} />}
      <CurrentPlanCard
        subscription={billing.data?.subscription}
        loading={billing.isPending}
        returnPath={returnPath}
        orgId={orgId}
        manage={manage}
      />
      {actions}
      <BillingDetailsCard orgId={orgId} editable={manage} />
      <InvoiceTable invoices={billing.data?.invoices} loading={billing.isPending} />
    </div>
  );
}

/** GET /api/billing failed: the server's refusal, else a reload hint (both billing screens). */
export function BillingLoadError({ error }: { error: unknown }) {
  return (
    <Alert tone="error">
      {failureMessage(error, 'We couldn’t load your billing details. Please reload the page.', { network: false })}
    </Alert>
  );
}
