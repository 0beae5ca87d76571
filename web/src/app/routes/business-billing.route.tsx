import { BillingOverviewPanel } from '../../features/billing/components/billing-overview';
import { useSelectedOrg } from '../../features/organizations/components/org-selection';
import { PageTitle } from '../../ui';

export default function BusinessBillingRoute() {
  const { selected, loading } = useSelectedOrg();
  return (
    <div className="console-screen">
      <PageTitle title="Business billing" description="Your organization's Quietwire plan and invoices." />
      <div className="console-screen__head">
        <h1>Billing</h1>
        {selected && <p className="qw-muted">{selected.name}</p>}
      </div>
      {loading ? (
        <p className="qw-muted">Loading…</p>
      ) : selected ? (
        <BillingOverviewPanel key={selected.id} orgId={selected.id} returnPath="/app/business/billing" />
      ) : (
        <p>No organization found.</p>
      )}
    </div>
  );
}
