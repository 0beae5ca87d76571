import { useEffect, useRef, useState, type FormEvent, type ReactNode } from 'react';
import { failureMessage } from '../../../lib/api-client';
import { useAuth } from '../../../lib/auth/auth-provider';
import { Alert, Badge, Button, Field, Input } from '../../../ui';
import { useConfirmMfa } from '../api/confirm-mfa';
import { useDisableMfa } from '../api/disable-mfa';
import { useEnrolMfa, type MfaEnrolment } from '../api/enrol-mfa';
import './account.css';

const failedMessage = 'That didn’t work. Please try again in a moment.';
export const twoFactorNeedsVerifiedEmail =
  'Confirm your email address first: open the link we sent you. Then you can turn on two-factor sign-in here.';

/**
 * Two-factor sign-in: set up with an authenticator app (QR code, or the key typed by hand), turn on
 * with a code, keep the ten recovery codes shown once, and turn off with a code.
 */
export function TwoFactorSettings() {
  const { me } = useAuth();
  const [enrolment, setEnrolment] = useState<MfaEnrolment | null>(null);
  const [recoveryCodes, setRecoveryCodes] = useState<string[] | null>(null);
  const enabled = me?.mfa_enabled ?? false;

  let body: ReactNode;
  if (!me) body = <p className="qw-muted">Loading…</p>;
  else if (recoveryCodes)
    body = <RecoveryCodes codes={recoveryCodes} email={me.user.email} onDone={() => setRecoveryCodes(null)} />;
  else if (enabled) body = <TurnOff />;
  else if (!me.email_verified)
    // Identity refuses it too (email_unverified): on an address nobody has proved, a second factor
    // could lock the real owner out of an account made in their name.
    body = (
      <p className="qw-muted" data-testid="mfa-needs-verified-email">
        {twoFactorNeedsVerifiedEmail}
      </p>
    );
  else if (enrolment)
    body = (
      <SetUp
        enrolment={enrolment}
        onCancel={() => setEnrolment(null)}
        onConfirmed={(codes) => {
          setEnrolment(null);
          setRecoveryCodes(codes);
        }}
      />
    );
  else body = <Start onStarted={setEnrolment} />;

  return (
    <section className="qw-stack" aria-labelledby="mfa-settings-title">
      <div className="account-status">
        <h3 id="mfa-settings-title" className="qw-card__title">
          Two-factor sign-in
        </h3>
        {me && (
          <Badge tone={enabled ? 'success' : 'neutral'} dot>
            {enabled ? 'On' : 'Off'}
          </Badge>
        )}
      </div>
      {body}
    </section>
  );
}

function Start({ onStarted }: { onStarted: (enrolment: MfaEnrolment) => void }) {
  const enrol = useEnrolMfa();
  return (
    <div className="qw-stack qw-stack--sm">
      <p className="qw-muted">
        Ask for a code from an authenticator app (such as 1Password, Google Authenticator or Aegis) each time you sign
        in.
      </p>
      {enrol.isError && <Alert tone="error">{failureMessage(enrol.error, failedMessage)}</Alert>}
      <div>
        <Button
          variant="secondary"
          onClick={() => enrol.mutate(undefined, { onSuccess: onStarted })}
          busy={enrol.isPending}
          busyText="Preparing…"
        >
          Set up two-factor sign-in
        </Button>
      </div>
    </div>
  );
}

function SetUp({
  enrolment,
  onCancel,
  onConfirmed,
}: {
  enrolment: MfaEnrolment;
  onCancel: () => void;
  onConfirmed: (codes: string[]) => void;
}) {
  const confirm = useConfirmMfa();
  const [code, setCode] = useState('');
  const [error, setError] = useState<string | null>(null);

  function onSubmit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    if (confirm.isPending) return;
    if (!/^\d{6}$/.test(code.replace(/\s+/g, ''))) {
      setError('Enter the 6-digit code your app shows.');
      document.getElementById('mfa-setup-code')?.focus();
      return;
    }
    setError(null);
    confirm.mutate(code.replace(/\s+/g, ''), {
      onSuccess: (answer) => onConfirmed(answer.recovery_codes),
      onError: (failure) => {
        setError(failureMessage(failure, failedMessage));
        document.getElementById('mfa-setup-code')?.focus();
      },
    });
  }

  return (
    <div className="qw-stack">
      <ol className="qw-stack qw-stack--sm">
        <li>Scan the QR code with your authenticator app, or type the key by hand.</li>
        <li>Enter the 6-digit code the app then shows.</li>
      </ol>
      <div className="account-setup">
        <img
          className="account-qr"
          src={enrolment.qr_data_url}
          alt="QR code to add Quietwire to an authenticator app"
          width={200}
          height={200}
        />
        <div className="qw-stack qw-stack--sm">
          <p className="qw-small qw-muted" id="mfa-secret-label">
            Can’t scan? Enter this key:
          </p>
          <code className="account-secret" id="mfa-secret">
            {enrolment.secret}
          </code>
        </div>
      </div>
      <form className="qw-stack account-form" onSubmit={onSubmit} noValidate aria-label="Turn on two-factor sign-in">
        <Field id="mfa-setup-code" label="Code from the app" error={error}>
          <Input
            name="code"
            inputMode="numeric"
            autoComplete="one-time-code"
            maxLength={7}
            value={code}
            onChange={(event) => setCode(event.target.value)}
            className="qw-mono"
          />
        </Field>
        <div className="qw-cluster">
          <Button type="submit" busy={confirm.isPending} busyText="Checking…">
            Turn on
          </Button>
          <Button variant="secondary" onClick={onCancel} disabled={confirm.isPending}>
            Cancel
          </Button>
        </div>
      </form>
    </div>
  );
}

function RecoveryCodes({ codes, email, onDone }: { codes: string[]; email: string; onDone: () => void }) {
  const [copied, setCopied] = useState<string | null>(null);
  const headingRef = useRef<HTMLHeadingElement>(null);
  const text = `Quietwire recovery codes for ${email}\nEach code works once.\n\n${codes.join('\n')}\n`;

  useEffect(() => headingRef.current?.focus(), []);

  async function copy() {
    try {
      await navigator.clipboard.writeText(text);
      setCopied('Copied.');
    } catch {
      setCopied('Your browser didn’t allow copying; select the codes and copy them instead.');
    }
  }

  function download() {
    const url = URL.createObjectURL(new Blob([text], { type: 'text/plain' }));
    const link = document.createElement('a');
    link.href = url;
    link.download = 'quietwire-recovery-codes.txt';
    link.click();
    setTimeout(() => URL.revokeObjectURL(url), 1000);
  }

  return (
    <div className="qw-stack">
      <Alert tone="success" title="Two-factor sign-in is on">
        Keep these recovery codes somewhere safe. Each one signs you in once if you can’t use your app. They are shown
        only now.
      </Alert>
      <h4 ref={headingRef} tabIndex={-1} className="qw-visually-hidden">
        Your recovery codes
      </h4>
      <ul className="account-codes qw-mono" aria-label="Recovery codes" data-testid="recovery-codes">
        {codes.map((code) => (
          <li key={code}>{code}</li>
        ))}
      </ul>
      <div className="qw-cluster">
        <Button variant="secondary" onClick={copy}>
          Copy codes
        </Button>
        <Button variant="secondary" onClick={download}>
          Download
        </Button>
        <Button onClick={onDone}>I’ve saved them</Button>
        <p className="account-message" role="status">
          {copied}
        </p>
      </div>
    </div>
  );
}

function TurnOff() {
  const disable = useDisableMfa();
  const [code, setCode] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [done, setDone] = useState(false);

  function onSubmit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    if (disable.isPending) return;
    if (!code.trim()) {
      setError('Enter a code from your app or a recovery code.');
      document.getElementById('mfa-disable-code')?.focus();
      return;
    }
    setError(null);
    disable.mutate(code.trim(), {
      onSuccess: () => setDone(true),
      onError: (failure) => {
        setError(failureMessage(failure, failedMessage));
        document.getElementById('mfa-disable-code')?.focus();
      },
    });
  }

  return (
    <div className="qw-stack">
      <p className="qw-muted">
        Signing in asks for a code from your authenticator app. To turn this off, enter a current code or one of your
        recovery codes.
      </p>
      {done && <Alert tone="success">Two-factor sign-in is off.</Alert>}
      <form className="qw-stack account-form" onSubmit={onSubmit} noValidate aria-label="Turn off two-factor sign-in">
        <Field id="mfa-disable-code" label="Code or recovery code" error={error}>
          <Input
            name="code"
            autoComplete="one-time-code"
            autoCapitalize="none"
            spellCheck={false}
            value={code}
            onChange={(event) => setCode(event.target.value)}
            className="qw-mono"
          />
        </Field>
        <div>
          <Button type="submit" variant="danger" busy={disable.isPending} busyText="Turning off…">
            Turn off two-factor sign-in
          </Button>
        </div>
      </form>
    </div>
  );
}
