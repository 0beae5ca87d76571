import { Link } from 'react-router-dom';
import { useAuth } from '../../../lib/auth/auth-provider';
import { formatDate } from '../../../lib/format';
import { Alert } from '../../../ui';

/**
 * In the areas (issue #26): Quietwire's support suspended the account. The person reads why, in
 * the operator's words, and what it means for them; they can still use everything but devices.
 */
export function AccountSuspendedBanner() {
  const { me } = useAuth();
  const suspension = me?.account_suspension;
  if (!suspension) return null;
  return (
    <Alert tone="error" title="Quietwire suspended your account" announce={false}>
      <div className="qw-stack qw-stack--sm">
        <p>
          “{suspension.reason}” (since {formatDate(suspension.since)})
        </p>
        <p>
          Your devices do not connect, and none can be added or switched on, until the suspension is lifted. You can
          still see your account, pay, and export your data. <Link to="/support">Contact support</Link> about it.
        </p>
      </div>
    </Alert>
  );
}
