import type { InputHTMLAttributes, Ref } from 'react';
import { useFieldControl } from './field';

export type InputProps = InputHTMLAttributes<HTMLInputElement> & { ref?: Ref<HTMLInputElement> };

export function Input({ className, ...rest }: InputProps) {
  const field = useFieldControl();
  return <input {...field} {...rest} className={['qw-input', className].filter(Boolean).join(' ')} />;
}
