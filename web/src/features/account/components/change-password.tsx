import { failureMessage } from '../../../lib/api-client';
import { useRequestPasswordReset } from '../../../lib/auth/api/request-password-reset';
import { useAuth } from '../../../lib/auth/auth-provider';
import { Alert, Button } from '../../../ui';

/** Change password through the reset email: proves the mailbox, and ends every other session afterwards. */
export function ChangePassword() {
  const { user } = useAuth();
  const send = useRequestPasswordReset();
  if (!user) return null;

  return (
    <section className="qw-stack qw-stack--sm" aria-labelledby="change-password-title">
      <h3 id="change-password-title" className="qw-card__title">
        Change password
      </h3>
      <p className="qw-muted">
        We’ll email {user.email} a link to set a new password. Afterwards you sign in again on every device.
      </p>
      {send.isSuccess && <Alert tone="success">We sent the link to {user.email}. It works for 60 minutes.</Alert>}
      {send.isError && (
        <Alert tone="error">
          {failureMessage(send.error, 'We couldn’t send the email. Please try again in a moment.')}
        </Alert>
      )}
      <div>
        <Button variant="secondary" onClick={() => send.mutate(user.email)} busy={send.isPending} busyText="Sending…">
          Email me a reset link
        </Button>
      </div>
    </section>
  );
}
