import { useSearchParams } from 'react-router-dom';
import { useBilling } from '../../features/billing/api/get-billing';
import { BillingOverviewPanel } from '../../features/billing/components/billing-overview';
import { PersonalPlanActions } from '../../features/billing/components/plan-actions';
import { PageTitle } from '../../ui';

/** Spec §2 personal Billing, with the plan changes, resuming, subscribing again and Business plans of issue #15. */
export default function PersonalBillingRoute() {
  const [params] = useSearchParams();
  const billing = useBilling(null);
  return (
    <div className="console-screen">
      <PageTitle title="Billing" description="Your Quietwire plan and invoices." />
      <div className="console-screen__head">
        <h1>Billing</h1>
      </div>
      <BillingOverviewPanel
        orgId={null}
        returnPath="/app/personal/billing"
        actions={
          <PersonalPlanActions
            subscription={billing.isError ? undefined : billing.data?.subscription}
            loading={billing.isPending}
            preselect={params.get('plan')}
          />
        }
      />
    </div>
  );
}
