import { BillingOverviewPanel } from '../../features/billing/components/billing-overview';
import { PageTitle } from '../../ui';

export default function PersonalBillingRoute() {
  return (
    <div className="console-screen">
      <PageTitle title="Billing" description="Your Quietwire plan and invoices." />
      <div className="console-screen__head">
        <h1>Billing</h1>
      </div>
      <BillingOverviewPanel orgId={null} returnPath="/app/personal/billing" />
    </div>
  );
}
