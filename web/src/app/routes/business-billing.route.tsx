import { useBilling } from '../../features/billing/api/get-billing';
import { BillingOverviewPanel } from '../../features/billing/components/billing-overview';
import { OrganizationPlanActions } from '../../features/billing/components/plan-actions';
import type { Organization } from '../../features/organizations/api/get-organizations';
import { WithSelectedOrg } from '../../features/organizations/components/org-selection';
import { PageTitle } from '../../ui';

/**
 * Spec §2 business Billing: the chosen organization's current plan with Manage Billing, and its
 * invoices; an organization whose plan ended can be paid again by its owners (issue #15).
 */
export default function BusinessBillingRoute() {
  return (
    <div className="console-screen">
      <PageTitle title="Business billing" description="Your organization's Quietwire plan and invoices." />
      <div className="console-screen__head">
        <h1>Billing</h1>
      </div>
      <WithSelectedOrg>{(org) => <OrganizationBilling key={org.id} org={org} />}</WithSelectedOrg>
    </div>
  );
}

function OrganizationBilling({ org }: { org: Organization }) {
  const billing = useBilling(org.id);
  return (
    <BillingOverviewPanel
      orgId={org.id}
      returnPath="/app/business/billing"
      actions={
        <OrganizationPlanActions
          orgId={org.id}
          orgName={org.name}
          isOwner={org.role === 'owner'}
          subscription={billing.isError ? undefined : billing.data?.subscription}
          loading={billing.isPending}
        />
      }
    />
  );
}
