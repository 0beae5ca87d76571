import { AdminOverviewPanel } from '../../features/admin/components/admin-overview';
import { PageTitle } from '../../ui';

/** Spec §2 Admin area, Overview (also the index page /admin). */
export default function AdminOverviewRoute() {
  return (
    <div className="console-screen">
      <PageTitle title="Admin — Overview" description="Quietwire admin console: Overview." />
      <div className="console-screen__head">
        <h1>Overview</h1>
        <p className="qw-muted">People, organizations and devices now, and the traffic of the last 24 hours.</p>
      </div>
      <AdminOverviewPanel />
    </div>
  );
}
