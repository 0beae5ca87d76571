import { OrgUsers } from '../../features/organizations/components/org-users';
import { WithSelectedOrg } from '../../features/organizations/components/org-selection';
import { PageTitle } from '../../ui';

/** /app/business/users (spec §2 Manage Users): the organization's users, invitations and roles. */
export default function BusinessUsersRoute() {
  return (
    <div className="console-screen">
      <PageTitle title="Users" description="The people in your organization, their roles and invitations." />
      <div className="console-screen__head">
        <h1>Users</h1>
      </div>
      <WithSelectedOrg>{(org) => <OrgUsers key={org.id} org={org} />}</WithSelectedOrg>
    </div>
  );
}
