import { planDisplayName } from '@qw/contracts';
import { useState } from 'react';
import { failureMessage } from '../../../lib/api-client';
import { formatAmount } from '../../../lib/format';
import { Button, Modal } from '../../../ui';
import type { AdminPerson } from '../api/get-person';
import { type PersonAction, usePersonAction } from '../api/person-actions';
import { type ActionOutcome, ActionOutcomeAlert } from './operator-action-parts';

const dialogs: Record<PersonAction, { title: (email: string) => string; confirm: string; busy: string; body: string }> =
  {
    'end-sessions': {
      title: (email) => `End every session of ${email}?`,
      confirm: 'End sessions',
      busy: 'Ending…',
      body: 'They are signed out everywhere within a few seconds and sign in again with their password. Their devices keep connecting.',
    },
    'resend-verification': {
      title: (email) => `Send the verification mail to ${email}?`,
      confirm: 'Send',
      busy: 'Sending…',
      body: 'A new link to confirm the address; any link sent before stops working.',
    },
    'refund-latest': {
      title: (email) => `Refund the latest payment of ${email}?`,
      confirm: 'Refund',
      busy: 'Refunding…',
      body: 'Within 7 days of the first payment, once per customer: the payment comes back in full, their plan ends now and its devices stop. Outside the window nothing changes and you are told why.',
    },
  };

/**
 * Issue #26: what an operator can do for one person, each confirmed in a dialog and answered with
 * a message that says what happened (or why nothing did).
 */
export function PersonActions({ person }: { person: AdminPerson }) {
  const { id, email, email_verified: verified } = person.profile;
  const [pending, setPending] = useState<PersonAction | null>(null);
  const [outcome, setOutcome] = useState<ActionOutcome | null>(null);
  const endSessions = usePersonAction(id, 'end-sessions');
  const resend = usePersonAction(id, 'resend-verification');
  const refund = usePersonAction(id, 'refund-latest');
  const busy = endSessions.isPending || resend.isPending || refund.isPending;

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
      } else if (pending === 'refund-latest') {
        const done = await refund.mutateAsync();
        setOutcome({
          tone: 'success',
          text: `Refunded ${formatAmount(done.refunded_cents, done.currency)} to ${email}; their ${planDisplayName(done.plan)} plan has ended and the refund mail is on its way.`,
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
        {person.plan && (
          <Button variant="secondary" size="small" onClick={() => setPending('refund-latest')}>
            Refund latest payment
          </Button>
        )}
      </div>
      <ActionOutcomeAlert outcome={outcome} />
      <Modal
        open={pending !== null}
        title={pending ? dialogs[pending].title(email) : ''}
        confirmLabel={pending ? dialogs[pending].confirm : ''}
        confirmVariant={pending === 'resend-verification' ? 'primary' : 'danger'}
        busy={busy}
        busyText={pending ? dialogs[pending].busy : ''}
        onCancel={() => setPending(null)}
        onConfirm={() => void confirm()}
      >
        <p>{pending ? dialogs[pending].body : ''}</p>
      </Modal>
    </div>
  );
}
