import type { ReactNode, Ref } from 'react';

export type AlertTone = 'info' | 'success' | 'warning' | 'error';

export type AlertProps = {
  tone?: AlertTone;
  title?: ReactNode;
  children?: ReactNode;
  id?: string;
  ref?: Ref<HTMLDivElement>;
  /** Alerts that appear after an action are announced; errors interrupt (role=alert), others wait (role=status). */
  announce?: boolean;
};

export function Alert({ tone = 'info', title, children, id, ref, announce = true }: AlertProps) {
  const role = announce ? (tone === 'error' ? 'alert' : 'status') : undefined;
  return (
    <div ref={ref} id={id} className={`qw-alert qw-alert--${tone}`} role={role} tabIndex={-1}>
      {title && <p className="qw-alert__title">{title}</p>}
      {children && <div>{children}</div>}
    </div>
  );
}
