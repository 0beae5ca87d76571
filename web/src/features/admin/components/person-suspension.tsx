import { accountSuspensionReasonMaxLength } from '@qw/contracts';
import { useState } from 'react';
import { failureMessage } from '../../../lib/api-client';
import { Button, Modal } from '../../../ui';
import type { AdminPerson } from '../api/get-person';
import { usePersonSuspension } from '../api/person-actions';
import { type ActionOutcome, ActionOutcomeAlert, SuspensionReasonField } from './operator-action-parts';

/**
 * Issue #26: the operator suspends a person's account, saying why in words the person reads on
 * their dashboard, or lifts it; both confirmed in a dialog and answered with what happened.
 */
export function PersonSuspension({ person }: { person: AdminPerson }) {
  const { id, email, suspension } = person.profile;
  const [open, setOpen] = useState(false);
  const [reason, setReason] = useState('');
  const [reasonError, setReasonError] = useState<string | null>(null);
  const [outcome, setOutcome] = useState<ActionOutcome | null>(null);
  const change = usePersonSuspension(id);

  async function confirm() {
    const why = reason.trim();
    if (!suspension && why === '') {
      setReasonError('Say why: the person reads it on their dashboard.');
      return;
    }
    setOutcome(null);
    try {
      if (suspension) {
        await change.mutateAsync({ suspend: false });
        setOutcome({
          tone: 'success',
          text: `The account of ${email} is active again; the devices its suspension held are back where their plan allows.`,
        });
      } else {
        await change.mutateAsync({ suspend: true, reason: why });
        setOutcome({
          tone: 'success',
          text: `The account of ${email} is suspended: their devices are off, and they read your reason on their dashboard.`,
        });
        setReason('');
      }
    } catch (failure) {
      setOutcome({ tone: 'error', text: failureMessage(failure, 'Nothing changed. Try again in a moment.') });
    }
    setOpen(false);
  }

  return (
    <div className="admin-person__actions">
      <div className="admin-person__buttons">
        <Button variant={suspension ? 'secondary' : 'danger'} size="small" onClick={() => setOpen(true)}>
          {suspension ? 'Lift suspension' : 'Suspend account'}
        </Button>
      </div>
      <ActionOutcomeAlert outcome={outcome} />
      <Modal
        open={open}
        title={suspension ? `Lift the suspension of ${email}?` : `Suspend the account of ${email}?`}
        confirmLabel={suspension ? 'Lift suspension' : 'Suspend'}
        confirmVariant={suspension ? 'primary' : 'danger'}
        busy={change.isPending}
        busyText={suspension ? 'Lifting…' : 'Suspending…'}
        onCancel={() => {
          setOpen(false);
          setReasonError(null);
        }}
        onConfirm={() => void confirm()}
      >
        <p>
          {suspension
            ? 'Their devices come back where their plan (or organization) allows; those they switched off themselves stay off.'
            : 'Every device of theirs stops connecting, personal and in organizations, and none can be added or switched on until the suspension is lifted. They can still sign in, pay, export their data and write to support.'}
        </p>
        {!suspension && (
          <SuspensionReasonField
            hint="Shown to the person on their dashboard, as written here."
            value={reason}
            error={reasonError}
            maxLength={accountSuspensionReasonMaxLength}
            onChange={(value) => {
              setReason(value);
              if (reasonError) setReasonError(null);
            }}
          />
        )}
      </Modal>
    </div>
  );
}
