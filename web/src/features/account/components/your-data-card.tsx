import { useRef, useState, type FormEvent } from 'react';
import { Link, useNavigate } from 'react-router-dom';
import { failureMessage, hasErrorCode } from '../../../lib/api-client';
import { useAuth } from '../../../lib/auth/auth-provider';
import { Alert, Button, Card, Field, Input, Modal } from '../../../ui';
import { useDeleteAccount } from '../api/delete-account';
import { useExportAccount } from '../api/export-account';
import './account.css';

const failedMessage = 'That didn’t work. Please try again in a moment.';

/**
 * The Account tab's "Your data": download everything held about the person as JSON, and delete the
 * account. Deleting asks for the password, not a typed word: a typed word guards against a slip,
 * the password also against whoever finds the account open on someone else's screen.
 */
export function YourDataCard() {
  return (
    <Card as="section" aria-labelledby="your-data-title" className="account-data">
      <h2 id="your-data-title" className="qw-card__title">
        Your data
      </h2>
      <ExportData />
      <hr className="account-rule" />
      <DeleteAccount />
    </Card>
  );
}

function ExportData() {
  const exported = useExportAccount();
  return (
    <section className="qw-stack qw-stack--sm" aria-labelledby="export-title">
      <h3 id="export-title" className="qw-card__title">
        Download your data
      </h3>
      <p className="qw-muted">
        One JSON file with your account, organizations, devices (names, addresses and public keys; never a private key),
        plans, receipts and the audit entries about you. <Link to="/privacy/what-we-store">What we store</Link> lists
        where each part comes from.
      </p>
      {exported.isSuccess && (
        <Alert tone="success">Downloaded quietwire-data-{exported.data.exported_at.slice(0, 10)}.json.</Alert>
      )}
      {exported.isError && <Alert tone="error">{failureMessage(exported.error, failedMessage)}</Alert>}
      <div>
        <Button variant="secondary" onClick={() => exported.mutate()} busy={exported.isPending} busyText="Preparing…">
          Download my data
        </Button>
      </div>
    </section>
  );
}

function DeleteAccount() {
  const { user, signOut } = useAuth();
  const navigate = useNavigate();
  const remove = useDeleteAccount();
  const [open, setOpen] = useState(false);
  const [password, setPassword] = useState('');
  const [passwordError, setPasswordError] = useState<string | null>(null);
  const [refusal, setRefusal] = useState<string | null>(null);
  const inputRef = useRef<HTMLInputElement>(null);

  function close() {
    setOpen(false);
    setPassword('');
    setPasswordError(null);
    setRefusal(null);
  }

  function confirm(event?: FormEvent<HTMLFormElement>) {
    event?.preventDefault();
    if (remove.isPending) return;
    if (!password) {
      setPasswordError('Enter your password.');
      inputRef.current?.focus();
      return;
    }
    setPasswordError(null);
    setRefusal(null);
    const email = user?.email ?? null;
    remove.mutate(password, {
      onSuccess: async () => {
        await signOut();
        await navigate('/account-deleted', { replace: true, state: { email } });
      },
      onError: (failure) => {
        if (hasErrorCode(failure, 'validation_failed')) {
          setPasswordError(failureMessage(failure, failedMessage));
          inputRef.current?.focus();
        } else setRefusal(failureMessage(failure, failedMessage));
      },
    });
  }

  return (
    <section className="qw-stack qw-stack--sm" aria-labelledby="delete-account-title">
      <h3 id="delete-account-title" className="qw-card__title">
        Delete your account
      </h3>
      <p className="qw-muted">
        Your plan is cancelled and does not renew, your devices leave our servers and stop working, and your name, email
        address and devices are erased. Receipts of past payments are kept without them, as tax law requires. This
        cannot be undone.
      </p>
      <div>
        <Button variant="danger" onClick={() => setOpen(true)}>
          Delete account…
        </Button>
      </div>
      <Modal
        open={open}
        title="Delete your account?"
        confirmLabel="Delete my account"
        confirmVariant="danger"
        busy={remove.isPending}
        busyText="Deleting…"
        onConfirm={() => confirm()}
        onCancel={close}
      >
        <form className="qw-stack qw-stack--sm" onSubmit={confirm} noValidate aria-label="Confirm with your password">
          <p>Enter your password to confirm. Everything happens at once and cannot be undone.</p>
          {refusal && <Alert tone="error">{refusal}</Alert>}
          <Field id="delete-account-password" label="Password" error={passwordError} announceError>
            <Input
              ref={inputRef}
              type="password"
              name="password"
              autoComplete="current-password"
              value={password}
              onChange={(event) => setPassword(event.target.value)}
            />
          </Field>
        </form>
      </Modal>
    </section>
  );
}
