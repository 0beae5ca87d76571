import { Link } from 'react-router-dom';
import { Card, PageTitle } from '../../ui';

/** Placeholder for /login (spec §2); replaced by the feature that owns it. */
export default function LoginRoute() {
  return (
    <main id="main" className="qw-placeholder">
      <PageTitle title="Sign in" description="Sign in — Quietwire." />
      <Card>
        <h1>Sign in</h1>
        <p className="qw-muted">Placeholder: the sign-in screen (/login) is being built.</p>
        <Link to="/">Back to Quietwire</Link>
      </Card>
    </main>
  );
}
