import { useEffect, useRef, useState, type FormEvent } from 'react';
import { isApiError } from '../api-client';
import { Button, Field, Input } from '../../ui';
import type { Session } from './session-types';

export const mfaTimedOutMessage = 'This sign-in has timed out. Enter your email and password again.';

export type MfaCodeStepProps = {
  /** Finishes the sign-in with the code (AuthState.completeMfa bound to the challenge token). */
  submit: (code: string) => Promise<Session>;
  onSignedIn: (session: Session) => void;
  /** The challenge ended (timed out, too many tries): start again from the password. */
  onRestart: (message: string) => void;
  /** Where the "use a different account" button goes, e.g. back to the email step. */
  onCancel?: () => void;
};

/**
 * The second step of a sign-in with two-factor on: a code from the authenticator app or one of
 * the recovery codes. Shared by /login and /post-checkout.
 */
export function MfaCodeStep({ submit, onSignedIn, onRestart, onCancel }: MfaCodeStepProps) {
  const [code, setCode] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const inputRef = useRef<HTMLInputElement>(null);

  useEffect(() => inputRef.current?.focus(), []);

  async function onSubmit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    if (busy) return;
    const trimmed = code.trim();
    if (!trimmed) {
      setError('Enter the code from your authenticator app, or a recovery code.');
      inputRef.current?.focus();
      return;
    }
    setBusy(true);
    setError(null);
    try {
      const session = await submit(trimmed);
      onSignedIn(session);
    } catch (failure) {
      setBusy(false);
      // The challenge itself ended (timed out, or too many tries on it): start again from the password.
      if (isApiError(failure) && failure.code === 'invalid_token') {
        onRestart(failure.message || mfaTimedOutMessage);
        return;
      }
      setError(isApiError(failure) ? failure.message : 'We couldn’t check the code. Please try again.');
      setCode('');
      inputRef.current?.focus();
    }
  }

  return (
    <form className="qw-stack" onSubmit={onSubmit} noValidate aria-labelledby="mfa-title">
      <div className="qw-stack qw-stack--sm">
        <h2 id="mfa-title" className="qw-card__title">
          Two-factor sign-in
        </h2>
        <p className="qw-muted">Enter the 6-digit code your authenticator app shows for Quietwire.</p>
      </div>
      <Field
        id="mfa-code"
        label="Authentication code"
        error={error}
        hint="Use a recovery code if you can’t reach your app: it looks like abcde-fghjk. Each works once."
      >
        <Input
          ref={inputRef}
          name="code"
          autoComplete="one-time-code"
          autoCapitalize="none"
          spellCheck={false}
          value={code}
          onChange={(event) => setCode(event.target.value)}
          className="qw-mono"
        />
      </Field>
      <Button type="submit" block busy={busy} busyText="Verifying">
        Verify
      </Button>
      {onCancel && (
        <Button variant="secondary" block onClick={onCancel} disabled={busy}>
          Use a different account
        </Button>
      )}
    </form>
  );
}
