import { useSelectedOrg } from '../../features/organizations/components/org-selection';
import { PageTitle } from '../../ui';

/** Placeholder: the business Devices screen (quota, add form, device table) is built by the devices issue. */
export default function BusinessDevicesRoute() {
  const { selected } = useSelectedOrg();
  return (
    <div className="console-screen">
      <PageTitle title="Business devices" description="Your organization's Quietwire devices." />
      <div className="console-screen__head">
        <h1>Devices</h1>
        <p className="qw-muted" data-placeholder="business-devices">
          {selected ? `Adding and managing the devices of ${selected.name} will appear here.` : 'Adding and managing organization devices will appear here.'}
        </p>
      </div>
    </div>
  );
}
