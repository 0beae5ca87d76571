import { Link } from 'react-router-dom';
import { Card, PageTitle } from '../../ui';

/** Placeholder for /app/business/* (spec §2); replaced by the feature that owns it. */
export default function BusinessAreaRoute() {
  return (
    <main id="main" className="qw-placeholder">
      <PageTitle title="Business area" description="Business area — Quietwire." />
      <Card>
        <h1>Business area</h1>
        <p className="qw-muted">Placeholder: the business area screen (/app/business/*) is being built.</p>
        <Link to="/">Back to Quietwire</Link>
      </Card>
    </main>
  );
}
