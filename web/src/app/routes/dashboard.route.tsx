import { Link } from 'react-router-dom';
import { Card, PageTitle } from '../../ui';

/** Placeholder for /dashboard (spec §2); replaced by the feature that owns it. */
export default function DashboardRoute() {
  return (
    <main id="main" className="qw-placeholder">
      <PageTitle title="Dashboard" description="Dashboard — Quietwire." />
      <Card>
        <h1>Dashboard</h1>
        <p className="qw-muted">Placeholder: the dashboard screen (/dashboard) is being built.</p>
        <Link to="/">Back to Quietwire</Link>
      </Card>
    </main>
  );
}
