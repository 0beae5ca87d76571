import { checkoutQuantity, findPlan, normalizeOrganizationName, organizationNameProblem } from '@qw/contracts';
import { useEffect, useRef, useState, type FormEvent } from 'react';
import { useNavigate, useSearchParams } from 'react-router-dom';
import { isApiError } from '../../../lib/api-client';
import { getMe } from '../../../lib/auth/api/get-me';
import { useAuth } from '../../../lib/auth/auth-provider';
import { useAutoRedirectHold } from '../../../lib/auth/auto-redirect';
import { MfaCodeStep } from '../../../lib/auth/mfa-code-step';
import type { Session } from '../../../lib/auth/session-types';
import { postCheckoutDestination } from '../../../lib/redirects';
import { Alert, Button, Card, Field, Input, Spinner } from '../../../ui';
import { useClaimCheckout, type ClaimedCheckout } from '../api/claim-checkout';
import { useVerifyCheckout, type CheckoutVerification } from '../api/verify-checkout';
import './purchase.css';

/** Spec §2 "Post-checkout page", §5 and §8 texts. */
export const postCheckoutTexts = {
  finalizing: 'Finalizing your purchase…',
  title: 'Create your account',
  missingPassword: 'Please enter a password.',
  /** Beside an empty email box (the spec's one text speaks of the password only). */
  missingEmail: 'Enter the email address for your account.',
  verifyFailed: 'Unable to verify checkout.',
  verifyNetworkError: 'Error verifying checkout.',
  signUpFailed: 'Sign up failed',
  signInFailed: 'Sign in failed',
  claimFailed: (status: number) => `Claim failed (status ${status})`,
} as const;

/**
 * Spec §5: an already-registered sign-up error is recognised by its message. The gateway's stable
 * code `already_exists` is checked first; the spec's message rule stays for any other wording.
 */
export const alreadyRegistered = /registered|exists|already/i;

export function isAlreadyRegistered(error: unknown): boolean {
  if (!isApiError(error)) return false;
  return error.code === 'already_exists' || alreadyRegistered.test(error.message);
}

/** The session id comes as sid (the test provider) or session_id (Stripe). */
export function checkoutSessionId(params: URLSearchParams): string | null {
  return params.get('sid') || params.get('session_id') || null;
}

/** The plan catalog's name; a code outside the catalog ('unknown') is shown as it is. */
export function checkoutPlanName(code: string): string {
  return findPlan(code)?.name ?? code;
}

/** An answer with the gateway's error shape carries the server's own text; anything else does not. */
function serverMessage(error: unknown): string | null {
  if (!isApiError(error) || error.status === 0 || error.code === 'invalid_response' || error.code.startsWith('http_'))
    return null;
  return error.message || null;
}

/** A sign-up refusal about the password (too short, too common): shown at the password field. */
export function isPasswordProblem(error: unknown): boolean {
  return isApiError(error) && (error.code === 'weak_password' || error.details?.field === 'password');
}

/**
 * What the page has to say (the spec's alerts, shown in the page with role=alert): about a field
 * (marked invalid, the message beside it) or about the purchase as a whole.
 */
type Notice = { text: string; field: 'email' | 'password' | 'org_name' | null };

export function verifyFailureText(error: unknown): string {
  if (isApiError(error) && error.status === 0) return postCheckoutTexts.verifyNetworkError;
  return serverMessage(error) ?? postCheckoutTexts.verifyFailed;
}

/** After a business claim, identity turns the buyer into a business account shortly afterwards (an event). */
export async function waitForBusinessAccount(timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    try {
      const me = await getMe();
      if (me.profile.account_type === 'business' || me.org_member) return;
    } catch {
      // Keep trying until the deadline; the business area copes with a late organization.
    }
    await new Promise((resolve) => setTimeout(resolve, 300));
  }
}

/**
 * Spec §4 "Post-checkout submit": sign up; if the email is already registered, sign in with the
 * same password instead (with the two-factor step when it is on); claim the purchase; then go to
 * /app/business/devices for a business purchase, else /app/personal/devices.
 */
export function PostCheckout() {
  const [params] = useSearchParams();
  const sessionId = checkoutSessionId(params);
  const verification = useVerifyCheckout(sessionId);
  const { signUp, signIn, completeMfa, refresh } = useAuth();
  const claim = useClaimCheckout();
  const navigate = useNavigate();
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  /** A Business purchase's organization, named here (empty: a name made from the buyer's, to change later). */
  const [orgName, setOrgName] = useState('');
  const [busy, setBusy] = useState(false);
  const [mfaToken, setMfaToken] = useState<string | null>(null);
  const [notice, setNotice] = useState<Notice | null>(null);
  const redirectHold = useAutoRedirectHold();
  const alerted = useRef(false);
  const data: CheckoutVerification | null = verification.data ?? null;
  const loading = sessionId !== null && verification.isPending;

  useEffect(() => {
    if (data?.email) setEmail(data.email);
  }, [data?.email]);

  useEffect(() => {
    if (!verification.isError || alerted.current) return;
    alerted.current = true;
    console.error(verification.error);
    setNotice({ text: verifyFailureText(verification.error), field: null });
  }, [verification.isError, verification.error]);

  /**
   * The person is signed in but the purchase could not be added: the hold stays while this page is
   * open, so the redirect does not carry them off before they have read why (unmounting lets go).
   */
  function stopSignedIn() {
    setBusy(false);
    setMfaToken(null);
  }

  /** The flow ended before anyone was signed in: the automatic redirect may run again. */
  function stop() {
    stopSignedIn();
    redirectHold.release();
  }

  async function claimAndGo(session: Session) {
    let claimed: ClaimedCheckout | null = null;
    if (sessionId) {
      try {
        claimed = await claim.mutateAsync({
          session_id: sessionId,
          email: data?.email || email.trim(),
          plan_code: data?.plan_code ?? '',
          account_type: data?.account_type ?? 'personal',
          quantity: data?.quantity ?? checkoutQuantity,
          ...(data?.account_type === 'business' && normalizeOrganizationName(orgName)
            ? { org_name: normalizeOrganizationName(orgName) }
            : {}),
        });
      } catch (failure) {
        setNotice({
          text: serverMessage(failure) ?? postCheckoutTexts.claimFailed(isApiError(failure) ? failure.status : 0),
          field: isApiError(failure) && failure.details?.field === 'org_name' ? 'org_name' : null,
        });
        stopSignedIn();
        return;
      }
    }
    const accountType = claimed?.account_type ?? data?.account_type ?? session.user.account_type;
    if (accountType === 'business' && session.user.account_type !== 'business') {
      // The access token still says personal: wait for the new account type, then renew the session.
      await waitForBusinessAccount();
      await refresh();
    }
    void navigate(postCheckoutDestination(accountType), { replace: true });
  }

  async function onSubmit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    if (busy) return;
    const address = (data?.email || email).trim();
    if (!address || !password) {
      // Spec §5: one alert for either missing value. A missing password is that field's error; a missing
      // email keeps the spec's alert and gets its own words beside the email box.
      setNotice({ text: postCheckoutTexts.missingPassword, field: password ? 'email' : 'password' });
      return;
    }
    const named = normalizeOrganizationName(orgName);
    const nameProblem = data?.account_type === 'business' && named ? organizationNameProblem(named) : null;
    if (nameProblem) {
      setNotice({ text: nameProblem, field: 'org_name' });
      return;
    }
    setNotice(null);
    setBusy(true);
    // Signing up fires a sign-in event; this page finishes the claim before it leaves.
    redirectHold.hold();
    let session: Session;
    try {
      session = await signUp(address, password);
    } catch (signUpError) {
      if (!isAlreadyRegistered(signUpError)) {
        setNotice({
          text: (signUpError instanceof Error && signUpError.message) || postCheckoutTexts.signUpFailed,
          field: isPasswordProblem(signUpError) ? 'password' : null,
        });
        stop();
        return;
      }
      try {
        const answer = await signIn(address, password);
        if ('mfa_required' in answer) {
          setMfaToken(answer.mfa_token);
          return;
        }
        session = answer;
      } catch (signInError) {
        setNotice({
          text: (signInError instanceof Error && signInError.message) || postCheckoutTexts.signInFailed,
          field: null,
        });
        stop();
        return;
      }
    }
    await claimAndGo(session);
  }

  const plan = data ? checkoutPlanName(data.plan_code) : null;
  const fieldError = (field: Notice['field']) =>
    notice && notice.field === field ? (field === 'email' ? postCheckoutTexts.missingEmail : notice.text) : undefined;

  return (
    <Card className="focus-card">
      <h1>{postCheckoutTexts.title}</h1>
      {notice && notice.field !== 'password' && notice.field !== 'org_name' && (
        <Alert tone="error" assertive>
          {notice.text}
        </Alert>
      )}
      {loading ? (
        <p className="co-status" role="status">
          <Spinner />
          {postCheckoutTexts.finalizing}
        </p>
      ) : mfaToken ? (
        <MfaCodeStep
          submit={(code) => completeMfa(mfaToken, code)}
          onSignedIn={(session) => void claimAndGo(session)}
          onRestart={(message) => {
            setNotice({ text: message, field: null });
            stop();
          }}
          onCancel={stop}
        />
      ) : (
        <>
          {data && plan !== null && (
            <dl className="co-summary" data-testid="purchase-summary">
              <dt>Plan</dt>
              <dd data-testid="purchase-plan">{plan}</dd>
              {data.account_type === 'business' && (
                <>
                  <dt>Seats</dt>
                  <dd data-testid="purchase-seats">{data.quantity}</dd>
                </>
              )}
            </dl>
          )}
          <p className="qw-muted">
            {data
              ? 'Thanks for your purchase. Choose a password to finish.'
              : 'Choose the email and password for your Quietwire account.'}{' '}
            Already a customer? Enter your current password and we’ll add this purchase to your account.
          </p>
          <form className="qw-stack" onSubmit={onSubmit} noValidate aria-label={postCheckoutTexts.title}>
            <Field
              id="post-checkout-email"
              label="Email"
              hint={data?.email ? 'The address you paid with.' : undefined}
              error={fieldError('email')}
              announceError
              required
            >
              <Input
                type="email"
                name="email"
                autoComplete="username"
                inputMode="email"
                required
                readOnly={Boolean(data?.email)}
                value={email}
                onChange={(event) => {
                  setEmail(event.target.value);
                  if (notice?.field === 'email') setNotice(null);
                }}
              />
            </Field>
            <Field
              id="post-checkout-password"
              label="Password"
              hint="At least 10 characters."
              error={fieldError('password')}
              announceError
              required
            >
              <Input
                type="password"
                name="password"
                autoComplete="new-password"
                required
                value={password}
                onChange={(event) => {
                  setPassword(event.target.value);
                  if (notice?.field === 'password') setNotice(null);
                }}
              />
            </Field>
            {data?.account_type === 'business' && (
              <Field
                id="post-checkout-org-name"
                label="Organization name"
                hint="What your team sees. Leave it empty to choose later; you can rename it any time."
                error={fieldError('org_name')}
                announceError
              >
                <Input
                  name="organization"
                  autoComplete="organization"
                  maxLength={100}
                  value={orgName}
                  onChange={(event) => {
                    setOrgName(event.target.value);
                    if (notice?.field === 'org_name') setNotice(null);
                  }}
                />
              </Field>
            )}
            <Button type="submit" block busy={busy} busyText="Creating account…">
              Create account
            </Button>
          </form>
        </>
      )}
    </Card>
  );
}
