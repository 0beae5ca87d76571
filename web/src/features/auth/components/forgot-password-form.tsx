import { useEffect, useRef, useState, type FormEvent } from 'react';
import { Link } from 'react-router-dom';
import { failureMessage } from '../../../lib/api-client';
import { useRequestPasswordReset } from '../../../lib/auth/api/request-password-reset';
import { Alert, Button, ButtonLink, Card, Field, Input } from '../../../ui';
import './auth.css';

const requestFailedMessage = 'We couldn’t send the link. Please try again in a moment.';

/** /forgot-password: asks for a reset link. The answer is the same whether or not the account exists. */
export function ForgotPasswordForm() {
  const [email, setEmail] = useState('');
  const [sentTo, setSentTo] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  const send = useRequestPasswordReset();
  const outcomeRef = useRef<HTMLDivElement>(null);

  useEffect(() => {
    if (sentTo || error) outcomeRef.current?.focus();
  }, [sentTo, error]);

  function onSubmit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    if (send.isPending) return;
    setError(null);
    const address = email.trim();
    send.mutate(address, {
      onSuccess: () => setSentTo(address),
      onError: (failure) => setError(failureMessage(failure, requestFailedMessage)),
    });
  }

  if (sentTo) {
    return (
      <Card className="focus-card">
        <h1>Check your email</h1>
        <Alert ref={outcomeRef} tone="success">
          If an account exists for {sentTo}, we have sent it a link to set a new password. The link works for 60
          minutes.
        </Alert>
        <p className="qw-muted qw-small">
          Nothing after a few minutes? Check your spam folder, or send the link again.
        </p>
        <div className="auth-actions">
          <Button variant="secondary" onClick={() => setSentTo(null)}>
            Send again
          </Button>
          <ButtonLink to="/login">Back to sign in</ButtonLink>
        </div>
      </Card>
    );
  }

  return (
    <Card className="focus-card">
      <div className="qw-stack qw-stack--sm">
        <h1>Reset your password</h1>
        <p className="qw-muted">Enter the email you signed up with. We’ll send you a link to set a new password.</p>
      </div>
      <form className="qw-stack" onSubmit={onSubmit} aria-label="Reset your password">
        {error && (
          <Alert ref={outcomeRef} tone="error">
            {error}
          </Alert>
        )}
        <Field id="forgot-email" label="Email" required>
          <Input
            type="email"
            name="email"
            autoComplete="email"
            inputMode="email"
            required
            value={email}
            onChange={(event) => setEmail(event.target.value)}
          />
        </Field>
        <Button type="submit" block busy={send.isPending} busyText="Sending…">
          Send reset link
        </Button>
      </form>
      <div className="auth-links">
        <Link to="/login">Back to sign in</Link>
      </div>
    </Card>
  );
}
