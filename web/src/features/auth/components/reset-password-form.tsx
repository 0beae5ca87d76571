import { useEffect, useRef, useState, type FormEvent } from 'react';
import { useNavigate, useSearchParams } from 'react-router-dom';
import { failureMessage, isApiError } from '../../../lib/api-client';
import { useResetPassword } from '../../../lib/auth/api/reset-password';
import { useAuth } from '../../../lib/auth/auth-provider';
import { Alert, Button, ButtonLink, Card } from '../../../ui';
import './auth.css';
import { NewPasswordFields } from './new-password-fields';

const resetFailedMessage = 'We couldn’t change your password. Please try again in a moment.';
export const missingResetTokenMessage =
  'This reset link is incomplete. Open the link from the email again, or request a new one.';
export const passwordMismatchMessage = 'The two passwords don’t match.';

type Problem =
  | { field: 'password' | 'confirm'; text: string }
  | { field: 'link'; text: string }
  | { field: 'form'; text: string };

/**
 * /reset-password?token=…: a new password. The reset ends every session, so afterwards the person
 * signs in again on /login, which says the password was changed.
 */
export function ResetPasswordForm() {
  const [params] = useSearchParams();
  const token = params.get('token');
  const navigate = useNavigate();
  const { forget, notifyPasswordRecovery } = useAuth();
  const [password, setPassword] = useState('');
  const [confirm, setConfirm] = useState('');
  const [problem, setProblem] = useState<Problem | null>(null);
  const reset = useResetPassword();
  const alertRef = useRef<HTMLDivElement>(null);

  useEffect(() => {
    if (token) notifyPasswordRecovery();
  }, [token, notifyPasswordRecovery]);

  useEffect(() => {
    if (problem?.field === 'link' || problem?.field === 'form') alertRef.current?.focus();
    else if (problem) document.getElementById(`reset-${problem.field}`)?.focus();
  }, [problem]);

  function onSubmit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    if (!token || reset.isPending) return;
    if (password !== confirm) {
      setProblem({ field: 'confirm', text: passwordMismatchMessage });
      return;
    }
    setProblem(null);
    reset.mutate(
      { token, password },
      {
        onSuccess: () => {
          // The server ended every session of this account, this tab's included.
          forget();
          void navigate('/login?message=password_reset', { replace: true });
        },
        onError: (failure) => {
          // Matched by the error's code; the server's message is what the person reads.
          if (isApiError(failure) && failure.code === 'weak_password')
            setProblem({ field: 'password', text: failure.message });
          else if (isApiError(failure) && (failure.code === 'link_expired' || failure.code === 'not_found'))
            setProblem({ field: 'link', text: failure.message });
          else setProblem({ field: 'form', text: failureMessage(failure, resetFailedMessage) });
        },
      },
    );
  }

  if (!token || problem?.field === 'link') {
    return (
      <Card className="focus-card">
        <h1>Reset link not valid</h1>
        <Alert ref={alertRef} tone="error">
          {problem?.field === 'link' ? problem.text : missingResetTokenMessage}
        </Alert>
        <div className="auth-actions">
          <ButtonLink to="/forgot-password">Request a new link</ButtonLink>
          <ButtonLink to="/login" variant="secondary">
            Back to sign in
          </ButtonLink>
        </div>
      </Card>
    );
  }

  return (
    <Card className="focus-card">
      <div className="qw-stack qw-stack--sm">
        <h1>Set a new password</h1>
        <p className="qw-muted">
          Choose a new password for your Quietwire account. You’ll sign in again afterwards on every device.
        </p>
      </div>
      <form className="qw-stack" onSubmit={onSubmit} aria-label="Set a new password">
        {problem?.field === 'form' && (
          <Alert ref={alertRef} tone="error">
            {problem.text}
          </Alert>
        )}
        <NewPasswordFields
          idPrefix="reset"
          passwordLabel="New password"
          confirmLabel="Repeat the new password"
          password={password}
          confirm={confirm}
          onPassword={setPassword}
          onConfirm={setConfirm}
          problem={problem}
        />
        <Button type="submit" block busy={reset.isPending} busyText="Saving…">
          Set new password
        </Button>
      </form>
    </Card>
  );
}
