import { useEffect, useRef, useState, type FormEvent } from 'react';
import { useQueryClient } from '@tanstack/react-query';
import { Link, useNavigate, useSearchParams } from 'react-router-dom';
import { failureMessage } from '../../../lib/api-client';
import { useAuth } from '../../../lib/auth/auth-provider';
import { useAutoRedirectHold } from '../../../lib/auth/auto-redirect';
import { MfaCodeStep } from '../../../lib/auth/mfa-code-step';
import type { Session } from '../../../lib/auth/session-types';
import { getMe, meKey } from '../../../lib/auth/api/get-me';
import { awaitsMembership, landingSubject, roleHome, safeNextPath } from '../../../lib/redirects';
import { Alert, Button, Card, Field, Input } from '../../../ui';
import './auth.css';

/** Spec §2 /login notice for ?message=verification_expired. */
export const verificationExpiredNotice =
  'Your email verification link has expired. Please sign in to request a new verification email.';
export const passwordChangedNotice = 'Your password has been changed. Sign in with your new password.';
const signInFailedMessage = 'We couldn’t sign you in. Please try again in a moment.';

const notices: Record<string, string> = {
  verification_expired: verificationExpiredNotice,
  password_reset: passwordChangedNotice,
};

/**
 * Spec §2 "Sign-in page behaviour" and §4 "Sign-in": email and password (required, browser-level
 * only); 'Signing in' while busy; the server's message inline in red; then `next` if it is a path
 * on this site, else the role's home, replacing the history entry. With two-factor on, a second
 * step asks for the code.
 */
export function LoginForm() {
  const { signIn, completeMfa } = useAuth();
  const queryClient = useQueryClient();
  const navigate = useNavigate();
  const [params] = useSearchParams();
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const [mfaToken, setMfaToken] = useState<string | null>(null);
  const errorRef = useRef<HTMLDivElement>(null);
  // This page navigates by itself after signing in; the automatic redirect would go to the same place.
  const redirectHold = useAutoRedirectHold();
  const notice = notices[params.get('message') ?? ''];

  useEffect(() => {
    if (error) errorRef.current?.focus();
  }, [error]);

  async function finish(session: Session) {
    const next = safeNextPath(params.get('next'));
    if (next) {
      void navigate(next, { replace: true });
      return;
    }
    // Spec §6: a member of an organization lands on the business area; only /api/me says so.
    let subject = landingSubject(session.user, null);
    if (awaitsMembership(subject)) {
      try {
        const me = await queryClient.fetchQuery({ queryKey: [...meKey, session.user.id], queryFn: getMe });
        subject = landingSubject(session.user, me);
      } catch {
        subject = landingSubject(session.user, null, true);
      }
    }
    void navigate(roleHome(subject), { replace: true });
  }

  async function onSubmit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    if (busy) return;
    setBusy(true);
    setError(null);
    redirectHold.hold();
    try {
      const answer = await signIn(email, password);
      if ('mfa_required' in answer) {
        setMfaToken(answer.mfa_token);
        setBusy(false);
        return;
      }
      await finish(answer);
    } catch (failure) {
      redirectHold.release();
      setBusy(false);
      setError(failureMessage(failure, signInFailedMessage));
    }
  }

  if (mfaToken) {
    return (
      <Card className="focus-card">
        <h1>Sign in</h1>
        <MfaCodeStep
          submit={(code) => completeMfa(mfaToken, code)}
          onSignedIn={(session) => void finish(session)}
          onRestart={(message) => {
            redirectHold.release();
            setMfaToken(null);
            setPassword('');
            setError(message);
          }}
          onCancel={() => {
            redirectHold.release();
            setMfaToken(null);
            setPassword('');
          }}
        />
      </Card>
    );
  }

  return (
    <Card className="focus-card">
      <div className="qw-stack qw-stack--sm">
        <h1>Sign in</h1>
        <p className="qw-muted">Manage your devices, your plan and your account.</p>
      </div>
      {notice && <Alert tone="info">{notice}</Alert>}
      <form className="qw-stack" onSubmit={onSubmit} aria-label="Sign in">
        {error && (
          <Alert ref={errorRef} tone="error">
            {error}
          </Alert>
        )}
        <Field id="login-email" label="Email" required>
          <Input
            type="email"
            name="email"
            autoComplete="username"
            inputMode="email"
            required
            value={email}
            onChange={(event) => setEmail(event.target.value)}
          />
        </Field>
        <Field id="login-password" label="Password" required>
          <Input
            type="password"
            name="password"
            autoComplete="current-password"
            required
            value={password}
            onChange={(event) => setPassword(event.target.value)}
          />
        </Field>
        <Button type="submit" block busy={busy} busyText="Signing in">
          Sign in
        </Button>
      </form>
      <div className="auth-links">
        <Link to="/forgot-password">Forgot password?</Link>
        <span className="qw-muted">
          New here? <Link to="/pricing">Choose a plan</Link>
        </span>
      </div>
    </Card>
  );
}
