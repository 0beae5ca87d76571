import { Link } from 'react-router-dom';
import { Card, PageTitle } from '../../ui';

/** Placeholder for /app/personal/* (spec §2); replaced by the feature that owns it. */
export default function PersonalAreaRoute() {
  return (
    <main id="main" className="qw-placeholder">
      <PageTitle title="Personal area" description="Personal area — Quietwire." />
      <Card>
        <h1>Personal area</h1>
        <p className="qw-muted">Placeholder: the personal area screen (/app/personal/*) is being built.</p>
        <Link to="/">Back to Quietwire</Link>
      </Card>
    </main>
  );
}
