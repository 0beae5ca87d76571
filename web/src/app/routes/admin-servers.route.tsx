import { AdminServersPanel } from '../../features/admin/components/admin-servers';
import { PageTitle } from '../../ui';

/** Spec §2 Admin area, Servers: one card per server host; issue #23: add, enrol, drain and retire them. */
export default function AdminServersRoute() {
  return (
    <div className="console-screen console-screen--wide">
      <PageTitle title="Admin — Servers" description="Quietwire admin console: Servers." />
      <div className="console-screen__head">
        <h1>Servers</h1>
        <p className="qw-muted">
          Metrics from the last 5 minutes. Add a server to enrol a new host; drain one to move its devices to other
          servers of its region before you retire it.
        </p>
      </div>
      <AdminServersPanel />
    </div>
  );
}
