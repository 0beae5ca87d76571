import { useSelectedOrg } from '../../features/organizations/components/org-selection';
import { PageTitle } from '../../ui';

/** Placeholder: the business Overview (tiles Devices, Connected, VPN Status) is built by the devices issue. */
export default function BusinessOverviewRoute() {
  const { selected } = useSelectedOrg();
  return (
    <div className="console-screen">
      <PageTitle title="Business overview" description="Your organization's Quietwire devices at a glance." />
      <div className="console-screen__head">
        <h1>Overview</h1>
        <p className="qw-muted" data-placeholder="business-overview">
          {selected ? `Devices of ${selected.name} and their connection status will appear here.` : 'Your organization’s devices will appear here.'}
        </p>
      </div>
    </div>
  );
}
