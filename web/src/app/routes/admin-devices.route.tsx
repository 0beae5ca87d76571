import { AdminDevicesPanel } from '../../features/admin/components/admin-devices';
import { PageTitle } from '../../ui';

/** Spec §2 Admin area, Devices: every device, with activate, suspend and revoke_keys. */
export default function AdminDevicesRoute() {
  return (
    <div className="console-screen console-screen--wide">
      <PageTitle title="Admin — Devices" description="Quietwire admin console: Devices." />
      <div className="console-screen__head">
        <h1>Devices</h1>
        <p className="qw-muted">Every device of every account. Connected follows the latest handshake by itself.</p>
      </div>
      <AdminDevicesPanel />
    </div>
  );
}
