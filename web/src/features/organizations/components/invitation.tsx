import { invitationDays } from '@qw/contracts';
import { useState, type FormEvent } from 'react';
import { Link, useNavigate } from 'react-router-dom';
import { failureMessage, hasErrorCode } from '../../../lib/api-client';
import { useAuth } from '../../../lib/auth/auth-provider';
import { formatDate } from '../../../lib/format';
import { invitationSignInPath } from '../../../lib/redirects';
import { Alert, Button, ButtonLink, Card, Field, Input, Spinner } from '../../../ui';
import { useAcceptInvitation } from '../api/accept-invitation';
import { useInvitationPreview, type InvitationPreview } from '../api/preview-invitation';
import { invitationStep, roleLabel } from '../utils/organization-rules';
import { rememberOrganization } from './org-selection';
import './organizations.css';

/** Where a new member lands (spec §6 business landing: the devices screen). */
export const joinedPath = '/app/business/devices';

/**
 * /invite?token=…: what the invitation offers, then, by who is holding the link: the invited
 * address signed in joins; someone else signed in is told so and may sign out; nobody signed in
 * signs in (an account exists) or creates the account with the invited address, and comes back
 * here to join.
 */
export function Invitation({ token }: { token: string | null }) {
  const preview = useInvitationPreview(token);
  const { loading } = useAuth();

  if (!token)
    return (
      <InvitationProblem text="This invitation link is incomplete. Open the link from the email again, or ask for a new invitation." />
    );
  if (preview.isError)
    return (
      <InvitationProblem
        text={failureMessage(preview.error, 'We couldn’t open this invitation. Please try again in a moment.')}
      />
    );
  if (preview.isPending || loading)
    return (
      <Card className="focus-card">
        <h1>Invitation</h1>
        <p className="qw-cluster" role="status">
          <Spinner /> Opening your invitation…
        </p>
      </Card>
    );
  return <InvitationSteps token={token} invitation={preview.data} />;
}

function InvitationProblem({ text }: { text: string }) {
  return (
    <Card className="focus-card">
      <h1>Invitation not available</h1>
      <Alert tone="error">{text}</Alert>
      <p className="qw-muted">
        Invitations work once and expire after {invitationDays} days. The owner or an admin of the organization can send
        a new one.
      </p>
      <ButtonLink to="/" variant="secondary">
        Go to Quietwire
      </ButtonLink>
    </Card>
  );
}

function InvitationSteps({ token, invitation }: { token: string; invitation: InvitationPreview }) {
  const { user } = useAuth();
  const step = invitationStep({
    signedInEmail: user?.email,
    invitedEmail: invitation.email,
    accountExists: invitation.account_exists,
  });
  return (
    <Card className="focus-card">
      <h1>Join {invitation.organization}</h1>
      <p>
        You’re invited to join <strong>{invitation.organization}</strong> on Quietwire as{' '}
        {roleLabel(invitation.role).toLowerCase()}. The invitation is for <strong>{invitation.email}</strong> and
        expires on {formatDate(invitation.expires_at)}.
      </p>
      {step === 'join' && <JoinStep token={token} invitation={invitation} />}
      {step === 'wrong-account' && <WrongAccountStep invitation={invitation} signedInAs={user?.email ?? ''} />}
      {step === 'sign-in' && <SignInStep token={token} invitation={invitation} />}
      {step === 'sign-up' && <SignUpStep token={token} invitation={invitation} />}
    </Card>
  );
}

function JoinStep({ token, invitation }: { token: string; invitation: InvitationPreview }) {
  const accept = useAcceptInvitation();
  const { user } = useAuth();
  const navigate = useNavigate();
  const [error, setError] = useState<string | null>(null);

  function onJoin() {
    if (accept.isPending) return;
    setError(null);
    accept.mutate(token, {
      onSuccess: ({ organization }) => {
        // The business area opens on the organization just joined.
        rememberOrganization(user?.id, organization.id);
        void navigate(joinedPath, { replace: true });
      },
      onError: (failure) =>
        setError(failureMessage(failure, 'We couldn’t add you to the organization. Please try again.')),
    });
  }

  return (
    <div className="qw-stack">
      {error && <Alert tone="error">{error}</Alert>}
      <Button onClick={onJoin} busy={accept.isPending} busyText="Joining…" block>
        Join {invitation.organization}
      </Button>
    </div>
  );
}

function WrongAccountStep({ invitation, signedInAs }: { invitation: InvitationPreview; signedInAs: string }) {
  const { signOut } = useAuth();
  const [busy, setBusy] = useState(false);
  return (
    <div className="qw-stack">
      <Alert tone="warning" announce={false}>
        You’re signed in as {signedInAs}, but this invitation is for {invitation.email}. Sign out, then sign in or
        create the account with {invitation.email} to join.
      </Alert>
      <Button
        variant="secondary"
        busy={busy}
        busyText="Signing out…"
        block
        onClick={async () => {
          setBusy(true);
          await signOut();
          setBusy(false);
        }}
      >
        Sign out
      </Button>
    </div>
  );
}

function SignInStep({ token, invitation }: { token: string; invitation: InvitationPreview }) {
  return (
    <div className="qw-stack">
      <p className="qw-muted">Sign in as {invitation.email} to join. You come back here afterwards.</p>
      <ButtonLink to={invitationSignInPath(token)} block>
        Sign in to join
      </ButtonLink>
      <p className="qw-small qw-muted">
        Forgot your password? <Link to="/forgot-password">Reset it</Link>, then open the invitation link again.
      </p>
    </div>
  );
}

function SignUpStep({ token, invitation }: { token: string; invitation: InvitationPreview }) {
  const { signUp } = useAuth();
  const [password, setPassword] = useState('');
  const [busy, setBusy] = useState(false);
  const [passwordProblem, setPasswordProblem] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [exists, setExists] = useState(false);

  async function onSubmit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    if (busy) return;
    if (!password) {
      setPasswordProblem('Please enter a password.');
      return;
    }
    setBusy(true);
    setPasswordProblem(null);
    setError(null);
    try {
      // Signed in from here on: this page shows the Join step for the invited address. The
      // invitation's link proved the address, so no confirmation mail follows.
      await signUp(invitation.email, password, token);
    } catch (failure) {
      setBusy(false);
      if (hasErrorCode(failure, 'weak_password') || hasErrorCode(failure, 'validation_failed'))
        setPasswordProblem(failure.message);
      else if (hasErrorCode(failure, 'already_exists')) setExists(true);
      else setError(failureMessage(failure, 'We couldn’t create your account. Please try again in a moment.'));
    }
  }

  if (exists)
    return (
      <div className="qw-stack">
        <Alert tone="info">An account with {invitation.email} already exists. Sign in to join.</Alert>
        <ButtonLink to={invitationSignInPath(token)} block>
          Sign in to join
        </ButtonLink>
      </div>
    );

  return (
    <form className="qw-stack" onSubmit={onSubmit} noValidate aria-label="Create your account">
      <h2 className="qw-card__title">Create your account</h2>
      <Field id="invite-signup-email" label="Email">
        <Input type="email" name="email" autoComplete="username" value={invitation.email} readOnly />
      </Field>
      <Field
        id="invite-signup-password"
        label="Password"
        hint="At least 10 characters."
        error={passwordProblem ?? undefined}
        required
      >
        <Input
          type="password"
          name="password"
          autoComplete="new-password"
          required
          value={password}
          onChange={(event) => setPassword(event.target.value)}
        />
      </Field>
      {error && <Alert tone="error">{error}</Alert>}
      <Button type="submit" busy={busy} busyText="Creating account…" block>
        Create account
      </Button>
      <p className="qw-small qw-muted">
        Already have an account? <Link to={invitationSignInPath(token)}>Sign in</Link>
      </p>
    </form>
  );
}
