import { Alert, Field, TextArea } from '../../../ui';

/** What an operator's action on a person or an organization did, or why nothing did. */
export type ActionOutcome = { tone: 'success' | 'error'; text: string };

/** The answer to an operator's action, under the buttons that asked for it. */
export function ActionOutcomeAlert({ outcome }: { outcome: ActionOutcome | null }) {
  if (!outcome) return null;
  return (
    <Alert tone={outcome.tone} title={outcome.tone === 'success' ? 'Done' : 'Action failed'}>
      {outcome.text}
    </Alert>
  );
}

/** Why an operator suspends: required, and read as written by the people it suspends (`hint` says who). */
export function SuspensionReasonField(props: {
  hint: string;
  value: string;
  error: string | null;
  maxLength: number;
  onChange: (value: string) => void;
}) {
  return (
    <Field label="Reason" hint={props.hint} error={props.error} announceError required>
      <TextArea
        value={props.value}
        maxLength={props.maxLength}
        rows={3}
        onChange={(event) => props.onChange(event.target.value)}
      />
    </Field>
  );
}
