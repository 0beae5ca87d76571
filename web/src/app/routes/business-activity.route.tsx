import { OrgActivity } from '../../features/organizations/components/org-activity';
import { WithSelectedOrg } from '../../features/organizations/components/org-selection';
import { PageTitle } from '../../ui';

/** /app/business/activity (issue #12): the organization's audit log, for owners and admins. */
export default function BusinessActivityRoute() {
  return (
    <div className="console-screen">
      <PageTitle title="Activity" description="Who did what in your organization, and when." />
      <div className="console-screen__head">
        <h1>Activity</h1>
        <p className="qw-muted">Members, invitations, devices and the plan, newest first. No IP addresses are kept.</p>
      </div>
      <WithSelectedOrg>{(org) => <OrgActivity key={org.id} org={org} />}</WithSelectedOrg>
    </div>
  );
}
