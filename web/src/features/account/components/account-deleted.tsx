import { Link, useLocation } from 'react-router-dom';
import { Card } from '../../../ui';

/** Where a deleted account lands: what happened, and that the mail confirming it is the last one. */
export function AccountDeleted() {
  const location = useLocation();
  const email = (location.state as { email?: string | null } | null)?.email ?? null;
  return (
    <Card as="section" aria-labelledby="account-deleted-title" className="qw-stack">
      <h1 id="account-deleted-title">Your account has been deleted</h1>
      <p>
        Your plan is cancelled, your devices have left our servers and your personal data is erased. Every session of
        the account has ended.
      </p>
      <p>
        {email ? `We sent a confirmation to ${email}. ` : 'We sent a confirmation to your email address. '}
        It is the last message we send there.
      </p>
      <p>
        <Link to="/">Back to the home page</Link>
      </p>
    </Card>
  );
}
