import type { InputHTMLAttributes, Ref } from 'react';
import { useFieldControl } from './field';
import './control.css';
import './input.css';

export type InputProps = InputHTMLAttributes<HTMLInputElement> & { ref?: Ref<HTMLInputElement> };

export function Input({ className, ...rest }: InputProps) {
  const field = useFieldControl();
  return <input {...field} {...rest} className={['qw-input', className].filter(Boolean).join(' ')} />;
}
