import type { ButtonHTMLAttributes, ReactNode, Ref } from 'react';
import { Link, type LinkProps } from 'react-router-dom';
import { Spinner } from './spinner';
import './button.css';

export type ButtonVariant = 'primary' | 'secondary' | 'danger';
export type ButtonSize = 'medium' | 'small';

type StyleProps = { variant?: ButtonVariant; size?: ButtonSize; block?: boolean };

export function buttonClassName(
  { variant = 'primary', size = 'medium', block = false }: StyleProps,
  extra?: string,
): string {
  return [
    'qw-button',
    `qw-button--${variant}`,
    size === 'small' && 'qw-button--small',
    block && 'qw-button--block',
    extra,
  ]
    .filter(Boolean)
    .join(' ');
}

export type ButtonProps = ButtonHTMLAttributes<HTMLButtonElement> &
  StyleProps & {
    /** While true the button is disabled and shows `busyText` (the spec's busy text, e.g. 'Redirecting…'). */
    busy?: boolean;
    busyText?: ReactNode;
    ref?: Ref<HTMLButtonElement>;
  };

export function Button({
  variant,
  size,
  block,
  busy = false,
  busyText,
  disabled,
  className,
  children,
  type = 'button',
  ...rest
}: ButtonProps) {
  return (
    <button
      {...rest}
      type={type}
      className={buttonClassName({ variant, size, block }, className)}
      disabled={disabled || busy}
      aria-busy={busy || undefined}
    >
      {busy && <Spinner />}
      {busy && busyText !== undefined ? busyText : children}
    </button>
  );
}

export type ButtonLinkProps = LinkProps & StyleProps;

/** A link that looks like a button, for calls to action that navigate. */
export function ButtonLink({ variant, size, block, className, ...rest }: ButtonLinkProps) {
  return <Link {...rest} className={buttonClassName({ variant, size, block }, className)} />;
}
