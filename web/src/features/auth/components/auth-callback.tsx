import type { SetPasswordGrant } from '@qw/contracts';
import type { EmailVerificationOutcome } from '../../../lib/auth/session-manager';
import { NewPasswordFields } from './new-password-fields';
import { useEffect, useRef, useState, type FormEvent } from 'react';
import { useNavigate, useSearchParams } from 'react-router-dom';
import { failureMessage, isApiError } from '../../../lib/api-client';
import { useAuth } from '../../../lib/auth/auth-provider';
import type { Session } from '../../../lib/auth/session-types';
import { landingSubject, roleHome } from '../../../lib/redirects';
import { Alert, Button, ButtonLink, Card } from '../../../ui';
import './auth.css';

/** Spec §2 "Auth callback page" and §8 texts. */
export const callbackTexts = {
  processing: 'Verifying your email...',
  success: 'Email verified!',
  redirecting: 'Redirecting you to your dashboard...',
  failedTitle: 'Verification failed',
  expired: 'Your email verification link has expired. Please request a new one.',
  /** A link opened again (410 link_used): the server's words. */
  alreadyUsed: 'This verification link has already been used. Sign in, or request a new link.',
  sessionError: 'Failed to verify email. Please try again or request a new verification link.',
  noSession: 'No session found. Your verification link may have expired.',
  unexpected: 'An unexpected error occurred during verification.',
} as const;

/** Spec §9: the redirect after email verification. */
export const verifiedRedirectMs = 1500;

type CallbackState =
  | { kind: 'processing' }
  | { kind: 'password'; grant: SetPasswordGrant }
  | { kind: 'success'; session: Session }
  | { kind: 'error'; message: string };

/** What the query says before any request: an error from the link itself, no token, or a token to verify. */
export function callbackQueryOutcome(
  params: URLSearchParams,
): { kind: 'error'; message: string } | { kind: 'verify'; token: string } {
  const error = params.get('error');
  if (error) {
    const description = params.get('error_description');
    if (error === 'access_denied' && description?.toLowerCase().includes('expired'))
      return { kind: 'error', message: callbackTexts.expired };
    return { kind: 'error', message: description || `Authentication error: ${error}` };
  }
  const token = params.get('token');
  if (!token) return { kind: 'error', message: callbackTexts.noSession };
  return { kind: 'verify', token };
}

/** The error screen's text for a refused request, by the error's code (never its wording). */
export function callbackFailureText(failure: unknown): string {
  if (!isApiError(failure)) return callbackTexts.unexpected;
  if (failure.code === 'link_used') return callbackTexts.alreadyUsed;
  return failure.code === 'link_expired' ? callbackTexts.expired : callbackTexts.sessionError;
}

/** A link token can be spent once: a second mount (StrictMode, a re-render) must reuse the first answer. */
const verifications = new Map<string, Promise<EmailVerificationOutcome>>();

/**
 * Spec §2 /auth/callback: 'Verifying your email...', then success with a redirect after 1.5 s, or
 * an error. Opened in the browser that holds the account's session, the link just confirms the
 * address. Anywhere else, a first verification asks the person who opened the link to choose the
 * password in between (the account may have been made by someone else in their name).
 */
export function AuthCallback() {
  const { verifyEmail, me, meFailed } = useAuth();
  // Read when the 1.5 s are up: /api/me says whether the person belongs to an organization (spec §6).
  const membership = useRef({ me, meFailed });
  membership.current = { me, meFailed };
  const navigate = useNavigate();
  const [params] = useSearchParams();
  const [state, setState] = useState<CallbackState>({ kind: 'processing' });
  const headingRef = useRef<HTMLHeadingElement>(null);

  useEffect(() => {
    let cancelled = false;
    const outcome = callbackQueryOutcome(params);
    if (outcome.kind === 'error') {
      setState(outcome);
      return;
    }
    let pending = verifications.get(outcome.token);
    if (!pending) {
      pending = verifyEmail(outcome.token);
      verifications.set(outcome.token, pending);
    }
    pending.then(
      (outcome) => {
        if (cancelled) return;
        if (outcome.step === 'choose_password') setState({ kind: 'password', grant: outcome });
        else if (outcome.session) setState({ kind: 'success', session: outcome.session });
        else setState({ kind: 'error', message: callbackTexts.sessionError });
      },
      (failure: unknown) => {
        if (cancelled) return;
        if (!isApiError(failure)) console.error(failure);
        setState({ kind: 'error', message: callbackFailureText(failure) });
      },
    );
    return () => {
      cancelled = true;
    };
  }, [params, verifyEmail]);

  useEffect(() => {
    if (state.kind !== 'success') return;
    const timer = setTimeout(() => {
      const { me: known, meFailed: failed } = membership.current;
      void navigate(roleHome(landingSubject(state.session.user, known, failed)), { replace: true });
    }, verifiedRedirectMs);
    return () => clearTimeout(timer);
  }, [state, navigate]);

  useEffect(() => {
    if (state.kind === 'success' || state.kind === 'error') headingRef.current?.focus();
  }, [state.kind]);

  if (state.kind === 'processing') {
    return (
      <Card className="focus-card">
        <h1>Email verification</h1>
        <p className="auth-status" role="status">
          <span className="qw-spinner" aria-hidden="true" />
          {callbackTexts.processing}
        </p>
      </Card>
    );
  }

  if (state.kind === 'password') {
    return (
      <ChoosePassword
        grant={state.grant}
        onDone={(session) => setState({ kind: 'success', session })}
        onFailed={(failure) => setState({ kind: 'error', message: callbackFailureText(failure) })}
      />
    );
  }

  if (state.kind === 'success') {
    return (
      <Card className="focus-card">
        <h1 ref={headingRef} tabIndex={-1}>
          {callbackTexts.success}
        </h1>
        <p role="status">{callbackTexts.redirecting}</p>
      </Card>
    );
  }

  return (
    <Card className="focus-card">
      <h1 ref={headingRef} tabIndex={-1}>
        {callbackTexts.failedTitle}
      </h1>
      <Alert tone="error">{state.message}</Alert>
      <div className="auth-actions">
        <ButtonLink to="/login?message=verification_expired">Get new verification link</ButtonLink>
        <ButtonLink to="/login" variant="secondary">
          Back to login
        </ButtonLink>
      </div>
    </Card>
  );
}

export const choosePasswordTexts = {
  title: 'Choose a password',
  mismatch: 'The two passwords don’t match.',
  failed: 'We couldn’t save your password. Please try again in a moment.',
} as const;

type PasswordProblem = { field: 'password' | 'confirm' | 'form'; text: string };

/** The step between verifying and signing in: the password of the person who holds the mailbox. */
function ChoosePassword({
  grant,
  onDone,
  onFailed,
}: {
  grant: SetPasswordGrant;
  onDone: (session: Session) => void;
  onFailed: (failure: unknown) => void;
}) {
  const { setPassword } = useAuth();
  const [password, setPasswordValue] = useState('');
  const [confirm, setConfirm] = useState('');
  const [problem, setProblem] = useState<PasswordProblem | null>(null);
  const [busy, setBusy] = useState(false);
  const headingRef = useRef<HTMLHeadingElement>(null);
  const alertRef = useRef<HTMLDivElement>(null);

  useEffect(() => headingRef.current?.focus(), []);
  useEffect(() => {
    if (problem?.field === 'form') alertRef.current?.focus();
    else if (problem) document.getElementById(`choose-${problem.field}`)?.focus();
  }, [problem]);

  async function onSubmit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    if (busy) return;
    if (password !== confirm) {
      setProblem({ field: 'confirm', text: choosePasswordTexts.mismatch });
      return;
    }
    setProblem(null);
    setBusy(true);
    try {
      onDone(await setPassword(grant.set_password_token, password));
    } catch (failure) {
      setBusy(false);
      if (isApiError(failure) && failure.code === 'weak_password')
        setProblem({ field: 'password', text: failure.message });
      else if (isApiError(failure) && (failure.code === 'link_expired' || failure.code === 'not_found'))
        onFailed(failure);
      else setProblem({ field: 'form', text: failureMessage(failure, choosePasswordTexts.failed) });
    }
  }

  return (
    <Card className="focus-card">
      <div className="qw-stack qw-stack--sm">
        <h1 ref={headingRef} tabIndex={-1}>
          {choosePasswordTexts.title}
        </h1>
        <p className="qw-muted">
          To finish confirming <strong>{grant.email}</strong>, choose the password you will sign in with. Any other
          session of this account has been signed out.
        </p>
      </div>
      <form className="qw-stack" onSubmit={onSubmit} aria-label={choosePasswordTexts.title}>
        {problem?.field === 'form' && (
          <Alert ref={alertRef} tone="error">
            {problem.text}
          </Alert>
        )}
        <input type="email" name="email" autoComplete="username" value={grant.email} readOnly hidden />
        <NewPasswordFields
          idPrefix="choose"
          passwordLabel="Password"
          confirmLabel="Repeat the password"
          password={password}
          confirm={confirm}
          onPassword={setPasswordValue}
          onConfirm={setConfirm}
          problem={problem}
        />
        <Button type="submit" block busy={busy} busyText="Saving…">
          Save password and continue
        </Button>
      </form>
    </Card>
  );
}
