import { Link } from 'react-router-dom';
import { Card, PageTitle } from '../../ui';

/** Placeholder for /admin/* (spec §2); replaced by the feature that owns it. */
export default function AdminAreaRoute() {
  return (
    <main id="main" className="qw-placeholder">
      <PageTitle title="Admin console" description="Admin console — Quietwire." />
      <Card>
        <h1>Admin console</h1>
        <p className="qw-muted">Placeholder: the admin console screen (/admin/*) is being built.</p>
        <Link to="/">Back to Quietwire</Link>
      </Card>
    </main>
  );
}
