import { OverviewTiles } from '../../features/devices/components/overview-tiles';
import { ProtectionCheck } from '../../features/devices/components/protection-check';
import '../../features/devices/devices.css';
import { ButtonLink, PageTitle } from '../../ui';

export default function PersonalOverviewRoute() {
  return (
    <div className="console-screen">
      <PageTitle title="Overview" description="Your Quietwire devices at a glance." />
      <div className="console-screen__head">
        <h1>Overview</h1>
      </div>
      <OverviewTiles devicesPath="/app/personal/devices" />
      <p>
        <ButtonLink to="/app/personal/devices" variant="secondary">
          Manage devices
        </ButtonLink>
      </p>
      <ProtectionCheck devicesPath="/app/personal/devices" />
    </div>
  );
}
