import { devicesPerAssignee } from '@qw/contracts';
import { Link } from 'react-router-dom';
import { OrgDevicesPanel } from '../../features/devices/components/org-devices-panel';
import '../../features/devices/devices.css';
import { useOrgUsers, userLabel } from '../../features/organizations/api/get-org-users';
import type { Organization } from '../../features/organizations/api/get-organizations';
import { managesOrg } from '../../features/organizations/components/organization-account';
import { WithSelectedOrg } from '../../features/organizations/components/org-selection';
import { useAuth } from '../../lib/auth/auth-provider';
import { Alert, PageTitle, useToast } from '../../ui';

/** Spec §2/§5 business Devices for the chosen organization. */
export default function BusinessDevicesRoute() {
  return (
    <div className="console-screen">
      <PageTitle title="Business devices" description="Your organization's Quietwire devices." />
      <div className="console-screen__head">
        <h1>Devices</h1>
        <p className="qw-muted">
          Each person in an organization can have up to {devicesPerAssignee} organization devices. Each device gets its
          own key; its configuration is emailed to the person it is assigned to.
        </p>
      </div>
      <WithSelectedOrg>{(org) => <OrgDevices key={org.id} org={org} />}</WithSelectedOrg>
    </div>
  );
}

/** Owners and admins get the assignee picker with every organization user (spec §6); members assign to themselves. */
function OrgDevices({ org }: { org: Organization }) {
  const { user } = useAuth();
  const toast = useToast();
  const manages = managesOrg(org);
  // Someone who joins meanwhile gets devices the table lists every 10 s: their name follows within 30 s.
  const users = useOrgUsers(org.id, { enabled: manages, refetchInterval: 30_000 });
  // The picker appears once the list is there; until then (or if it fails) the device is the person's own.
  const assignees = manages && users.data ? users.data.map((u) => ({ user_id: u.user_id, label: userLabel(u) })) : null;
  return (
    <>
      {!org.is_active && (
        <div id="org-suspended-notice" data-testid="devices-plan-notice">
          <Alert tone="warning" announce={false}>
            {org.name} is Suspended: its devices are off and no device can be added until the plan is paid again.{' '}
            {managesOrg(org) && <Link to="/app/business/billing">Go to Billing</Link>}
          </Alert>
        </div>
      )}
      <OrgDevicesPanel
        blocked={
          org.is_active
            ? undefined
            : { reason: 'Adding a device needs the organization to be Active.', describedBy: 'org-suspended-notice' }
        }
        orgId={org.id}
        selfId={user?.id ?? ''}
        assignees={assignees}
        manages={manages}
        onAdded={(name) => toast(`${name} added. Its configuration is on its way by email to the person it is for.`)}
      />
    </>
  );
}
