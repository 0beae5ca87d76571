import { OrgOverviewTiles } from '../../features/devices/components/overview-tiles';
import { ProtectionCheck } from '../../features/devices/components/protection-check';
import '../../features/devices/devices.css';
import { WithSelectedOrg } from '../../features/organizations/components/org-selection';
import { managesOrg } from '../../features/organizations/components/organization-account';
import { TeamSummary } from '../../features/organizations/components/team-summary';
import { ButtonLink, PageTitle } from '../../ui';

/**
 * Spec §2 business Overview: Devices, Connected and VPN Status of the chosen organization; for its
 * owners and admins, what a team lead checks below them (issue #26).
 */
export default function BusinessOverviewRoute() {
  return (
    <div className="console-screen">
      <PageTitle title="Business overview" description="Your organization's Quietwire devices at a glance." />
      <div className="console-screen__head">
        <h1>Overview</h1>
      </div>
      <WithSelectedOrg>
        {(org) => (
          <>
            <OrgOverviewTiles key={org.id} orgId={org.id} devicesPath="/app/business/devices" />
            <p>
              <ButtonLink to="/app/business/devices" variant="secondary">
                Manage devices
              </ButtonLink>
            </p>
            <ProtectionCheck key={`check-${org.id}`} orgId={org.id} devicesPath="/app/business/devices" />
            {managesOrg(org) && <TeamSummary key={`team-${org.id}`} org={org} />}
          </>
        )}
      </WithSelectedOrg>
    </div>
  );
}
