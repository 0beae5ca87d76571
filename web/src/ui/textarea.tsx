import type { Ref, TextareaHTMLAttributes } from 'react';
import { useFieldControl } from './field';
import './control.css';
import './textarea.css';

export type TextAreaProps = TextareaHTMLAttributes<HTMLTextAreaElement> & { ref?: Ref<HTMLTextAreaElement> };

export function TextArea({ className, ...rest }: TextAreaProps) {
  const field = useFieldControl();
  return <textarea {...field} {...rest} className={['qw-textarea', className].filter(Boolean).join(' ')} />;
}
