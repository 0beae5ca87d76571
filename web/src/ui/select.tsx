import type { Ref, SelectHTMLAttributes } from 'react';
import { useFieldControl } from './field';
import './control.css';
import './select.css';

export type SelectOption = { value: string; label: string };

export type SelectProps = SelectHTMLAttributes<HTMLSelectElement> & {
  options?: readonly SelectOption[];
  ref?: Ref<HTMLSelectElement>;
};

export function Select({ className, options, children, ...rest }: SelectProps) {
  const field = useFieldControl();
  return (
    <select {...field} {...rest} className={['qw-select', className].filter(Boolean).join(' ')}>
      {options?.map((option) => (
        <option key={option.value} value={option.value}>
          {option.label}
        </option>
      ))}
      {children}
    </select>
  );
}
