import type { ReactNode, Ref } from 'react';
import './alert.css';

export type AlertTone = 'info' | 'success' | 'warning' | 'error';

export type AlertProps = {
  tone?: AlertTone;
  title?: ReactNode;
  children?: ReactNode;
  id?: string;
  ref?: Ref<HTMLDivElement>;
  /** Alerts that appear after an action are announced; errors interrupt (role=alert), others wait (role=status). */
  announce?: boolean;
  /** Interrupt whatever the tone (role=alert): the spec's own alerts, which replace the browser's alert(). */
  assertive?: boolean;
};

export function Alert({ tone = 'info', title, children, id, ref, announce = true, assertive = false }: AlertProps) {
  const role = announce ? (tone === 'error' || assertive ? 'alert' : 'status') : undefined;
  return (
    <div ref={ref} id={id} className={`qw-alert qw-alert--${tone}`} role={role} tabIndex={-1}>
      {title && <p className="qw-alert__title">{title}</p>}
      {children && <div>{children}</div>}
    </div>
  );
}
