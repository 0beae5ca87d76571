import { useState } from 'react';
import { failureMessage } from '../../../lib/api-client';
import { Badge, Button } from '../../../ui';
import type { AdminPerson } from '../api/get-person';
import { useSetTestAccount } from '../api/test-account';
import { type ActionOutcome, ActionOutcomeAlert } from './operator-action-parts';

/**
 * Issue #26: on a person's page, whether the account is a test account, and the operator's switch
 * to mark or unmark it (audited). "Hide test accounts" then leaves it out of the console's figures.
 */
export function TestAccountAction({ person }: { person: AdminPerson }) {
  const { id, email, is_test: isTest } = person.profile;
  const mark = useSetTestAccount(id);
  const [outcome, setOutcome] = useState<ActionOutcome | null>(null);

  async function toggle() {
    setOutcome(null);
    try {
      const answer = await mark.mutateAsync(!isTest);
      setOutcome({
        tone: 'success',
        text: answer.is_test
          ? `${email} is a test account now: “Hide test accounts” leaves it out of the console's figures and lists.`
          : `${email} is no longer a test account: it counts in every figure again.`,
      });
    } catch (failure) {
      setOutcome({ tone: 'error', text: failureMessage(failure, 'Nothing changed. Try again in a moment.') });
    }
  }

  return (
    <div className="admin-person__actions" data-testid="test-account">
      <div className="admin-person__buttons">
        {isTest && <Badge tone="neutral">Test account</Badge>}
        <Button
          variant="secondary"
          size="small"
          onClick={() => void toggle()}
          busy={mark.isPending}
          busyText={isTest ? 'Unmarking…' : 'Marking…'}
        >
          {isTest ? 'Unmark test account' : 'Mark as test account'}
        </Button>
      </div>
      <ActionOutcomeAlert outcome={outcome} />
    </div>
  );
}
