import { useEffect, useRef, useState } from 'react';
import { useNavigate, useSearchParams } from 'react-router-dom';
import { isApiError } from '../../../lib/api-client';
import { useAuth } from '../../../lib/auth/auth-provider';
import type { Session } from '../../../lib/auth/session-types';
import { roleHome } from '../../../lib/redirects';
import { Alert, ButtonLink, Card } from '../../../ui';
import './auth.css';

/** Spec §2 "Auth callback page" and §8 texts. */
export const callbackTexts = {
  processing: 'Verifying your email...',
  success: 'Email verified!',
  redirecting: 'Redirecting you to your dashboard...',
  failedTitle: 'Verification failed',
  expired: 'Your email verification link has expired. Please request a new one.',
  sessionError: 'Failed to verify email. Please try again or request a new verification link.',
  noSession: 'No session found. Your verification link may have expired.',
  unexpected: 'An unexpected error occurred during verification.',
} as const;

/** Spec §9: the redirect after email verification. */
export const verifiedRedirectMs = 1500;

type CallbackState = { kind: 'processing' } | { kind: 'success'; session: Session } | { kind: 'error'; message: string };

/** What the query says before any request: an error from the link itself, no token, or a token to verify. */
export function callbackQueryOutcome(params: URLSearchParams): { kind: 'error'; message: string } | { kind: 'verify'; token: string } {
  const error = params.get('error');
  if (error) {
    const description = params.get('error_description');
    if (error === 'access_denied' && description?.toLowerCase().includes('expired')) return { kind: 'error', message: callbackTexts.expired };
    return { kind: 'error', message: description || `Authentication error: ${error}` };
  }
  const token = params.get('token');
  if (!token) return { kind: 'error', message: callbackTexts.noSession };
  return { kind: 'verify', token };
}

/** A link token can be spent once: a second mount (StrictMode, a re-render) must reuse the first answer. */
const verifications = new Map<string, Promise<Session>>();

export function AuthCallback() {
  const { verifyEmail } = useAuth();
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
      (session) => {
        if (!cancelled) setState({ kind: 'success', session });
      },
      (failure: unknown) => {
        if (cancelled) return;
        if (isApiError(failure)) {
          setState({ kind: 'error', message: failure.status === 410 ? callbackTexts.expired : callbackTexts.sessionError });
        } else {
          console.error(failure);
          setState({ kind: 'error', message: callbackTexts.unexpected });
        }
      },
    );
    return () => {
      cancelled = true;
    };
  }, [params, verifyEmail]);

  useEffect(() => {
    if (state.kind !== 'success') return;
    const timer = setTimeout(() => void navigate(roleHome(state.session.user), { replace: true }), verifiedRedirectMs);
    return () => clearTimeout(timer);
  }, [state, navigate]);

  useEffect(() => {
    if (state.kind !== 'processing') headingRef.current?.focus();
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
