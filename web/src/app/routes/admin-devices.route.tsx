import { PageTitle } from '../../ui';

/** Placeholder: the admin Devices screen is built by the admin console issue. */
export default function AdminDevicesRoute() {
  return (
    <div className="console-screen">
      <PageTitle title="Admin — Devices" description="Quietwire admin console: Devices." />
      <div className="console-screen__head">
        <h1>Devices</h1>
        <p className="qw-muted" data-placeholder="admin-devices">
          Every device, with activate, suspend and revoke-keys actions will appear here.
        </p>
      </div>
    </div>
  );
}
