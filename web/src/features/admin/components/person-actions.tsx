import { useState } from 'react';
import { failureMessage } from '../../../lib/api-client';
import { Alert, Button, Modal } from '../../../ui';
import type { AdminPerson } from '../api/get-person';
import { type PersonAction, usePersonAction } from '../api/person-actions';

type Outcome = { tone: 'success' | 'error'; text: string };

/**
 * Issue #26: what an operator can do for one person, each confirmed in a dialog and answered with
 * a message that says what happened (or why nothing did).
 */
export function PersonActions({ person }: { person: AdminPerson }) {
  const { id, email, email_verified: verified } = person.profile;
  const [pending, setPending] = useState<PersonAction | null>(null);
  const [outcome, setOutcome] = useState<Outcome | null>(null);
  const endSessions = usePersonAction(id, 'end-sessions');
  const resend = usePersonAction(id, 'resend-verification');
  const busy = endSessions.isPending || resend.isPending;

  async function confirm() {
    setOutcome(null);
    try {
      if (pending === 'end-sessions') {
        const { ended } = await endSessions.mutateAsync();
        setOutcome({
          tone: 'success',
          text:
            ended === 0
              ? `${email} had no session to end; none can be used now.`
              : `Ended ${ended === 1 ? '1 session' : `${ended} sessions`} of ${email}: they sign in again to go on.`,
        });
      } else if (pending === 'resend-verification') {
        const { sent_to } = await resend.mutateAsync();
        setOutcome({
          tone: 'success',
          text: `A new verification link went to ${sent_to}. Earlier links no longer work.`,
        });
      }
    } catch (failure) {
      setOutcome({ tone: 'error', text: failureMessage(failure, 'Nothing changed. Try again in a moment.') });
    }
    setPending(null);
  }

  return (
    <div className="admin-person__actions">
      <div className="admin-person__buttons">
        <Button variant="secondary" size="small" onClick={() => setPending('end-sessions')}>
          End sessions
        </Button>
        {!verified && (
          <Button variant="secondary" size="small" onClick={() => setPending('resend-verification')}>
            Resend verification
          </Button>
        )}
      </div>
      {outcome && (
        <Alert tone={outcome.tone} title={outcome.tone === 'success' ? 'Done' : 'Action failed'}>
          {outcome.text}
        </Alert>
      )}
      <Modal
        open={pending !== null}
        title={
          pending === 'end-sessions' ? `End every session of ${email}?` : `Send the verification mail to ${email}?`
        }
        confirmLabel={pending === 'end-sessions' ? 'End sessions' : 'Send'}
        confirmVariant={pending === 'end-sessions' ? 'danger' : 'primary'}
        busy={busy}
        busyText={pending === 'end-sessions' ? 'Ending…' : 'Sending…'}
        onCancel={() => setPending(null)}
        onConfirm={() => void confirm()}
      >
        <p>
          {pending === 'end-sessions'
            ? 'They are signed out everywhere within a few seconds and sign in again with their password. Their devices keep connecting.'
            : 'A new link to confirm the address; any link sent before stops working.'}
        </p>
      </Modal>
    </div>
  );
}
