import { createContext, useContext, useId, type ReactNode } from 'react';
import './field.css';

type FieldControlProps = {
  id: string;
  'aria-describedby'?: string;
  'aria-invalid'?: true;
  required?: boolean;
};

const FieldContext = createContext<FieldControlProps | null>(null);

/** Input, Select and TextArea call this to pick up the id, description and invalid state of their Field. */
export function useFieldControl(): FieldControlProps | null {
  return useContext(FieldContext);
}

export type FieldProps = {
  label: ReactNode;
  /** Shown under the control in red and announced with it (aria-describedby). */
  error?: ReactNode;
  /** Also announce the error the moment it appears (role=alert): an error that answers a submit. */
  announceError?: boolean;
  hint?: ReactNode;
  required?: boolean;
  /** Use a fixed id when other code needs to focus the control. */
  id?: string;
  className?: string;
  children: ReactNode;
};

export function Field({ label, error, announceError = false, hint, required, id, className, children }: FieldProps) {
  const generated = useId();
  const controlId = id ?? `field-${generated}`;
  const hintId = hint ? `${controlId}-hint` : undefined;
  const errorId = error ? `${controlId}-error` : undefined;
  const describedBy = [hintId, errorId].filter(Boolean).join(' ') || undefined;
  const control: FieldControlProps = {
    id: controlId,
    'aria-describedby': describedBy,
    'aria-invalid': error ? true : undefined,
    required,
  };
  return (
    <div className={['qw-field', className].filter(Boolean).join(' ')}>
      <label className="qw-field__label" htmlFor={controlId}>
        {label}
      </label>
      {hint && (
        <p className="qw-field__hint" id={hintId}>
          {hint}
        </p>
      )}
      <FieldContext.Provider value={control}>{children}</FieldContext.Provider>
      {error && (
        <p className="qw-field__error" id={errorId} role={announceError ? 'alert' : undefined}>
          {error}
        </p>
      )}
    </div>
  );
}
