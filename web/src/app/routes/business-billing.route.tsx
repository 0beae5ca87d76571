import { useBilling } from '../../features/billing/api/get-billing';
import { BillingOverviewPanel } from '../../features/billing/components/billing-overview';
import { OrganizationPlanActions } from '../../features/billing/components/plan-actions';
import type { Organization } from '../../features/organizations/api/get-organizations';
import { WithSelectedOrg } from '../../features/organizations/components/org-selection';
import { managesOrg } from '../../features/organizations/components/organization-account';
import { Alert, PageTitle } from '../../ui';

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
  // A member may not read the plan or invoices: say so, and offer nothing that would be refused.
  if (!managesOrg(org))
    return <Alert tone="info">Only owners and admins of {org.name} can see its plan and invoices.</Alert>;
  return <ManagedBilling org={org} />;
}

function ManagedBilling({ org }: { org: Organization }) {
  const billing = useBilling(org.id);
  const isOwner = org.role === 'owner';
  return (
    <BillingOverviewPanel
      orgId={org.id}
      returnPath="/app/business/billing"
      manage={isOwner}
      actions={
        <OrganizationPlanActions
          orgId={org.id}
          orgName={org.name}
          isOwner={isOwner}
          subscription={billing.isError ? undefined : billing.data?.subscription}
          loading={billing.isPending}
        />
      }
    />
  );
}
