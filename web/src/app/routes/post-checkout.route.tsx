import { Link } from 'react-router-dom';
import { Card, PageTitle } from '../../ui';

/** Placeholder for /post-checkout (spec §2); replaced by the feature that owns it. */
export default function PostCheckoutRoute() {
  return (
    <main id="main" className="qw-placeholder">
      <PageTitle title="Create your account" description="Create your account — Quietwire." />
      <Card>
        <h1>Create your account</h1>
        <p className="qw-muted">Placeholder: the post-checkout account creation screen (/post-checkout) is being built.</p>
        <Link to="/">Back to Quietwire</Link>
      </Card>
    </main>
  );
}
