import { Link } from 'react-router-dom';
import { Card, PageTitle } from '../../ui';

/** Placeholder for /auth/callback (spec §2); replaced by the feature that owns it. */
export default function AuthCallbackRoute() {
  return (
    <main id="main" className="qw-placeholder">
      <PageTitle title="Email verification" description="Email verification — Quietwire." />
      <Card>
        <h1>Email verification</h1>
        <p className="qw-muted">Placeholder: the email verification screen (/auth/callback) is being built.</p>
        <Link to="/">Back to Quietwire</Link>
      </Card>
    </main>
  );
}
