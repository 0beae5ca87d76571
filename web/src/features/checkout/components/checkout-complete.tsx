import { findPlan } from '@qw/contracts';
import { useEffect, useRef, useState } from 'react';
import { useNavigate, useSearchParams } from 'react-router-dom';
import { failureMessage } from '../../../lib/api-client';
import { useAuth } from '../../../lib/auth/auth-provider';
import { Alert, Button, ButtonLink, Card, Spinner, useToast } from '../../../ui';
import { useClaimCheckout, type ClaimedCheckout } from '../api/claim-checkout';
import { useVerifyCheckout } from '../api/verify-checkout';
import { checkoutSessionId, verifyFailureText, waitForBusinessAccount } from './post-checkout';
import './purchase.css';

const claimFailedText = 'We couldn’t add this purchase to your account. Please try again in a moment.';

/**
 * /checkout/complete?sid=… — where a checkout started inside the app comes back (issue #15): the
 * signed-in person's purchase is added to their account at once, then they go where it counts: a
 * personal plan to Billing, a Business plan to the business area of the organization it made.
 */
export function CheckoutComplete({ onClaimed }: { onClaimed?: (claimed: ClaimedCheckout) => void }) {
  const [params] = useSearchParams();
  const sessionId = checkoutSessionId(params);
  const verification = useVerifyCheckout(sessionId);
  const claim = useClaimCheckout();
  const { user, refresh } = useAuth();
  const navigate = useNavigate();
  const toast = useToast();
  const [error, setError] = useState<string | null>(null);
  const [attempt, setAttempt] = useState(0);
  const started = useRef(-1);
  const data = verification.data;

  useEffect(() => {
    if (!sessionId || !data || !user || started.current === attempt) return;
    started.current = attempt;
    setError(null);
    const planName = findPlan(data.plan_code)?.name ?? data.plan_code;
    void (async () => {
      let claimed: ClaimedCheckout;
      try {
        claimed = await claim.mutateAsync({ session_id: sessionId, email: user.email });
      } catch (failure) {
        setError(failureMessage(failure, claimFailedText));
        return;
      }
      onClaimed?.(claimed);
      if (claimed.account_type === 'business') {
        // Identity makes the organization from the claim's event: wait for it, then renew the session.
        await waitForBusinessAccount();
        await refresh();
        toast(`${planName} is active. Welcome to your organization.`);
        void navigate('/app/business/overview', { replace: true });
        return;
      }
      toast(`Your ${planName} plan is active.`);
      void navigate('/app/personal/billing', { replace: true });
    })();
  }, [sessionId, data, user, attempt, claim, onClaimed, refresh, navigate, toast]);

  const failed = !sessionId
    ? 'This page needs a checkout to finish. Start again from Billing.'
    : verification.isError
      ? verifyFailureText(verification.error)
      : error;

  return (
    <Card className="focus-card">
      <h1>Finishing your purchase</h1>
      {failed ? (
        <>
          <Alert tone="error">{failed}</Alert>
          <div className="qw-cluster">
            {error && (
              <Button onClick={() => setAttempt((n) => n + 1)} busy={claim.isPending} busyText="Trying again…">
                Try again
              </Button>
            )}
            <ButtonLink to="/app/personal/billing" variant="secondary">
              Back to Billing
            </ButtonLink>
          </div>
        </>
      ) : (
        <p className="co-status" role="status">
          <Spinner />
          Adding {data ? (findPlan(data.plan_code)?.name ?? data.plan_code) : 'your plan'} to your account…
        </p>
      )}
    </Card>
  );
}
