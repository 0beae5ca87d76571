import { useState } from 'react';
import { failureMessage } from '../../../lib/api-client';
import { useResendVerification } from '../../../lib/auth/api/resend-verification';
import { useAuth } from '../../../lib/auth/auth-provider';
import { Alert, Button } from '../../../ui';
import './auth.css';

/** In the areas: the address is not confirmed yet; one button mails a new link. */
export function VerifyEmailBanner() {
  const { user, me } = useAuth();
  const resend = useResendVerification();
  const [outcome, setOutcome] = useState<{ tone: 'success' | 'error'; text: string } | null>(null);
  const verified = me?.email_verified ?? user?.email_verified ?? true;
  if (!user || verified) return null;

  function onResend() {
    setOutcome(null);
    resend.mutate(undefined, {
      onSuccess: (answer) =>
        setOutcome(
          answer.sent
            ? { tone: 'success', text: `We sent a new link to ${user?.email}. It works for 24 hours.` }
            : { tone: 'success', text: 'Your email address is already confirmed.' },
        ),
      onError: (failure) =>
        setOutcome({
          tone: 'error',
          text: failureMessage(failure, 'We couldn’t send the email. Please try again in a moment.'),
        }),
    });
  }

  return (
    <div className="qw-stack qw-stack--sm">
      <Alert tone="warning" title="Please confirm your email address" announce={false}>
        <div className="auth-banner">
          <span>We sent a link to {user.email}. Open it to confirm that this address is yours.</span>
          <Button size="small" variant="secondary" onClick={onResend} busy={resend.isPending} busyText="Sending…">
            Resend verification email
          </Button>
        </div>
      </Alert>
      {outcome && <Alert tone={outcome.tone}>{outcome.text}</Alert>}
    </div>
  );
}
