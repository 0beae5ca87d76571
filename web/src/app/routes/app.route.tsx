import { Link } from 'react-router-dom';
import { Card, PageTitle } from '../../ui';

/** Placeholder for /app (spec §2); replaced by the feature that owns it. */
export default function AppEntryRoute() {
  return (
    <main id="main" className="qw-placeholder">
      <PageTitle title="Quietwire app" description="Quietwire app — Quietwire." />
      <Card>
        <h1>Quietwire app</h1>
        <p className="qw-muted">Placeholder: the app entry screen (/app) is being built.</p>
        <Link to="/">Back to Quietwire</Link>
      </Card>
    </main>
  );
}
