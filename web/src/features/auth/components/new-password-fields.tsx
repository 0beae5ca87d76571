import { Field, Input } from '../../../ui';

/** A refusal that belongs to one of the two fields (the form shows the others itself). */
export type NewPasswordProblem = { field: string; text: string } | null;

/**
 * The password a person chooses, twice: used wherever one is set (after the first e-mail
 * verification, and with a reset link). Ids are `${idPrefix}-password` and `${idPrefix}-confirm`,
 * so a form can move focus to the field a refusal names.
 */
export function NewPasswordFields(props: {
  idPrefix: string;
  passwordLabel: string;
  confirmLabel: string;
  password: string;
  confirm: string;
  onPassword: (value: string) => void;
  onConfirm: (value: string) => void;
  problem: NewPasswordProblem;
}) {
  const { idPrefix, problem } = props;
  return (
    <>
      <Field
        id={`${idPrefix}-password`}
        label={props.passwordLabel}
        hint="At least 10 characters."
        error={problem?.field === 'password' ? problem.text : undefined}
        required
      >
        <Input
          type="password"
          name="password"
          autoComplete="new-password"
          required
          value={props.password}
          onChange={(event) => props.onPassword(event.target.value)}
        />
      </Field>
      <Field
        id={`${idPrefix}-confirm`}
        label={props.confirmLabel}
        error={problem?.field === 'confirm' ? problem.text : undefined}
        required
      >
        <Input
          type="password"
          name="confirm"
          autoComplete="new-password"
          required
          value={props.confirm}
          onChange={(event) => props.onConfirm(event.target.value)}
        />
      </Field>
    </>
  );
}
